// How every test process (and the nodesmith processes the real-stack tests start from source) runs our TypeScript:
// Node.js strips the types itself (on by default since 22.18), and this one in-thread hook resolves the `./x.js`
// specifiers our sources write (NodeNext's rule) to the `./x.ts` beside them.
//
// Why not tsx, as before: tsx's hooks run on a separate thread that every resolve and load of every module crosses,
// ours and node_modules' alike. Importing tap cost 0.43 CPU-s under tsx against 0.15 without, and an e2e file's
// tree 1.8 against about 1; the suite runs some 400 such processes on a 2-core machine where it is CPU-bound
// (DECISIONS.md, "Tests run on Node's own type stripping"). tsconfig's erasableSyntaxOnly keeps the sources to
// what stripping can run.
//
// A Node.js without type stripping or synchronous hooks (22.0-22.17) gets tsx, as before, rather than an error.
import module from 'node:module';

const relative = /^\.\.?\//;
const ours = (parentURL) => parentURL?.startsWith('file:') === true && parentURL.endsWith('.ts') && !parentURL.includes('/node_modules/');

if (process.features.typescript && typeof module.registerHooks === 'function') {
  module.registerHooks({
    resolve(specifier, context, nextResolve) {
      if (relative.test(specifier) && specifier.endsWith('.js') && ours(context.parentURL)) {
        try {
          return nextResolve(`${specifier.slice(0, -'.js'.length)}.ts`, context);
        } catch (error) {
          // No such .ts: a real .js module (a build script, a generated file), resolved as written below.
          if (error?.code !== 'ERR_MODULE_NOT_FOUND') throw error;
        }
      }
      return nextResolve(specifier, context);
    },
  });
} else {
  const { register } = await import('tsx/esm/api');
  register();
}
