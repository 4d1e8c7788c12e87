// Preloaded with `node --import <this>`: process.version reads as NODESMITH_PRETEND_NODE_VERSION, so a test can
// start the CLI as an older Node.js would without installing one.
const pretend = process.env['NODESMITH_PRETEND_NODE_VERSION'];
if (pretend !== undefined) Object.defineProperty(process, 'version', { value: pretend });
