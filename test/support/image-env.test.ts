import t from 'tap';
import { fileURLToPath } from 'node:url';
import { imageNodeFlags, imageRuntimeEnv, readImageNodeFlags, readImageRuntimeEnv } from './image-env.js';

void t.test("the runtime stage's plain ENV settings are read, and the build stage's and build arguments' are not", (t) => {
  const env = imageRuntimeEnv('FROM a AS build\nENV BUILD_ONLY=1\nFROM a\nARG COMMIT=""\nENV NODE_ENV=production C=${COMMIT}\nENV NODE_OPTIONS=--max-semi-space-size=4 MALLOC_ARENA_MAX=2\n');
  t.same(env, { NODE_ENV: 'production', NODE_OPTIONS: '--max-semi-space-size=4', MALLOC_ARENA_MAX: '2' });
  t.end();
});

void t.test("the project's image sets the memory settings that the child-process tests and benchmarks then run with", (t) => {
  const env = readImageRuntimeEnv(fileURLToPath(new URL('../../Dockerfile', import.meta.url)));
  t.match(env['NODE_OPTIONS'], /--max-semi-space-size=\d+/);
  t.match(env['MALLOC_ARENA_MAX'], /^\d+$/);
  t.end();
});

void t.test("node's own flags are read from the runtime stage's exec-form ENTRYPOINT, up to the script", (t) => {
  const dockerfile = 'FROM a AS build\nENTRYPOINT ["node", "--build-only"]\nFROM a\nENTRYPOINT ["node", "--heap-growing-percent=50", "--no-warnings", "/app/dist/cli/main.js", "--not-a-node-flag"]\nCMD ["--help"]\n';
  t.same(imageNodeFlags(dockerfile), ['--heap-growing-percent=50', '--no-warnings']);
  t.same(imageNodeFlags('FROM a\nENTRYPOINT ["node", "/app/main.js"]\n'), []);
  t.same(imageNodeFlags('FROM a\nCMD ["node"]\n'), []);
  t.throws(() => imageNodeFlags('FROM a\nENTRYPOINT node --flag /app/main.js\n'));
  t.end();
});

void t.test("the project's image gives node the heap growing factor that the child-process tests then run with", (t) => {
  t.same(readImageNodeFlags(fileURLToPath(new URL('../../Dockerfile', import.meta.url))), ['--heap-growing-percent=50', '--optimize-for-size']);
  t.end();
});
