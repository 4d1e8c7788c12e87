// Preloaded with `node ...runFromSource --import <this>`: registers module hooks that append every resolved module
// URL to the file named by NODESMITH_MODULE_LOG, so a test can see what a CLI command really loaded.
import { register } from 'node:module';

const log = process.env['NODESMITH_MODULE_LOG'];
if (log !== undefined) register('./record-modules-hooks.ts', import.meta.url, { data: { log } });
