// Lint encodes DESIGN.md's import table and STYLE.md's size bounds, so a boundary slip fails CI
// instead of waiting for review.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';
import prettier from 'eslint-config-prettier';

// provisioner/aws/ by provider job, lowest first: each folder and the folders of aws/ it may import. The root files
// (aws-provider.ts, aws-cloud-provider.ts, nodeclass-resolver.ts, metrics.ts, repair-policies.ts) build the ports
// from them and may import every folder; no folder imports the root (docs/architecture.md, "provisioner/aws/").
const awsFolders = {
  sdk: [],
  pricing: ['sdk'],
  images: ['sdk'],
  discovery: ['sdk'],
  'instance-profiles': ['sdk'],
  'interruption-queue': ['sdk'],
  'user-data': [],
  'launch-template': ['sdk'],
  'instance-types': ['sdk', 'images', 'pricing'],
  instances: ['sdk', 'launch-template', 'user-data'],
};

const boundaries = [
  { target: './domain', from: ['./extender', './webhooks', './provisioner', './cli', './test'], message: 'domain/ is pure: it imports nothing else of ours.' },
  { target: './webhooks', from: ['./extender', './provisioner', './cli', './test'], message: 'webhooks/ may import only domain/.' },
  { target: './provisioner', from: ['./extender', './webhooks', './cli', './test'], message: 'provisioner/ may import only domain/.' },
  { target: './extender', from: ['./webhooks', './cli', './test'], message: 'extender/ may import domain/ and provisioner/index.ts only.' },
  { target: './extender', from: './provisioner', except: ['./index.ts'], message: 'extender/ may import provisioner/index.ts only.' },
  // runtime/ is what every layer runs on (the controller loop, the logger type, the shared metric shapes): it builds
  // on domain/ alone, so any layer may import it without an arrow pointing up.
  { target: './provisioner/runtime', from: './provisioner', except: ['./runtime'], message: 'provisioner/runtime/ may import only domain/.' },
  // The adapters sit at the bottom of provisioner/: they implement ports and read the model, so a controller's
  // change never reaches them (issue 36).
  { target: './provisioner/kube', from: './provisioner', except: ['./kube', './ports', './state', './runtime', './index.ts'], message: 'provisioner/kube/ may import only ports/, state/, runtime/ and domain/.' },
  { target: './provisioner/aws', from: './provisioner', except: ['./aws', './ports', './state', './runtime'], message: 'provisioner/aws/ may import only ports/, state/, runtime/ and domain/.' },
  // provisioner/'s root files are the metrics and gauges the rooms share: the rooms import them, so they import no
  // room (a root file that did closed a circle through every room that reports a metric).
  { target: './provisioner/*.ts', from: './provisioner/!(runtime|state|ports)/**', message: 'provisioner/\'s root files may import only runtime/, state/, ports/ and domain/.' },
  // Inside aws/, each provider folder imports only the folders below it (awsFolders), so no import leads back.
  ...Object.entries(awsFolders).map(([folder, below]) => ({
    target: `./provisioner/aws/${folder}`,
    from: './provisioner/aws',
    except: [folder, ...below].map((f) => `./${f}`),
    message: below.length === 0
      ? `provisioner/aws/${folder}/ imports no other folder of aws/ (nor its root files).`
      : `provisioner/aws/${folder}/ may import only ${below.map((f) => `${f}/`).join(', ')} of aws/ (not its root files).`,
  })),
  // state/ is the ground floor for reads that several rooms share (the snapshot, NodeClass capacities, NodePool
  // conditions, the claim's plan, the NodeClass spec, the plan annotation): it builds on domain/ alone, plus the
  // types of provisioner/index.ts, the contract the extender reads the model through.
  { target: './provisioner/state', from: './provisioner', except: ['./state', './index.ts'], message: 'provisioner/state/ may import only domain/ (and the types of provisioner/index.ts).' },
  // ports/ holds the interfaces the adapters implement; it sits on state/ (a port may name ClusterState) and never
  // reaches up into a room, or every adapter would depend on that room through it.
  { target: './provisioner/ports', from: './provisioner', except: ['./ports', './state', './index.ts'], message: 'provisioner/ports/ may import only state/, domain/ and provisioner/index.ts.' },
  // provisioning/ (the planner, the batcher, the virtual nodes) is a room like the others: what another room
  // needs from it is a shared read and belongs in state/, so no room imports its internals (issue 36).
  // cli/ still starts its controllers and the Provisioner; it wires rooms and is not one.
  { target: ['./provisioner/!(provisioning)/**', './provisioner/*.ts'], from: './provisioner/provisioning', message: 'Only provisioning/ imports provisioning/: move a read other rooms share to provisioner/state/.' },
];

const sdkOnlyInAdapters = {
  patterns: [
    { group: ['@aws-sdk/*'], message: 'Only provisioner/aws/ talks to the AWS SDK.' },
    // A dev dependency: the tests' independent client. nodesmith talks to the API server through provisioner/kube/
    // (undici), so the generated client (about 70 MiB resident) never loads in the product.
    { group: ['@kubernetes/client-node', '@kubernetes/client-node/*'], message: 'Only tests use client-node; nodesmith calls the API through provisioner/kube/ (KubeRest, ApiConnection).' },
  ],
};

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.cache/**', 'manifests/**', 'coverage/**', '.tap/**', '*.config.mjs', 'domain/api/**/*.generated.ts'] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  ...tseslint.configs.stylisticTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    plugins: { 'import-x': importX },
    settings: { 'import-x/resolver': { typescript: true, node: true } },
    rules: {
      '@typescript-eslint/explicit-function-return-type': ['error', { allowExpressions: true, allowTypedFunctionExpressions: true }],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-non-null-assertion': 'error',
      // @kubernetes/client-node models (in tests) are classes, but its API takes plain objects everywhere (its own
      // docs do this), and wire objects parsed from JSON are never instances either.
      '@typescript-eslint/no-unsafe-class-instance-assignment': 'off',
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
      'import-x/no-default-export': 'error',
      'import-x/no-cycle': 'error',
      'import-x/no-restricted-paths': ['error', { zones: boundaries }],
      'no-restricted-imports': ['error', sdkOnlyInAdapters],
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'Read configuration once in a main.ts and pass it down.' }],
      complexity: ['error', 12],
      'max-depth': ['error', 3],
      'max-params': ['error', 4],
      'max-lines': ['error', { max: 300, skipBlankLines: true, skipComments: true }],
      'max-lines-per-function': ['error', { max: 60, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    // Plain-JS module hooks node loads before any TypeScript can be (test/support/ts-lines-hooks.mjs), build
    // scripts that run before anything is compiled, and CI's own helpers (.ci/tap-failures.mjs).
    files: ['test/support/*.mjs', 'build/*.mjs', '.ci/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { ...tseslint.configs.disableTypeChecked.languageOptions, globals: { process: 'readonly', URL: 'readonly', console: 'readonly' } },
    rules: { ...tseslint.configs.disableTypeChecked.rules, '@typescript-eslint/explicit-function-return-type': 'off' },
  },
  {
    // The build bundles provisioner/aws/sdk/sdk.ts alone (build/bundles.mjs): a value imported from a client
    // package anywhere else would load that whole package again in the image.
    files: ['provisioner/aws/**/*.ts'],
    ignores: ['provisioner/aws/sdk/sdk.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [
        { group: ['@aws-sdk/*'], allowTypeImports: true, message: 'Import AWS SDK values from aws/sdk/sdk.js (the bundled facade); types may come from the packages.' },
        sdkOnlyInAdapters.patterns[1],
      ] }],
    },
  },
  {
    files: ['provisioner/aws/sdk/sdk.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
  {
    // cli/ is the composition root: it builds the one connection every adapter shares.
    files: ['provisioner/kube/**/*.ts', 'cli/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [sdkOnlyInAdapters.patterns[0], sdkOnlyInAdapters.patterns[1]] }] },
  },
  {
    // Mains, tests, and the suite's runner, which passes its environment on to every test process it starts.
    files: ['**/main.ts', 'test/**/*.ts', 'test/**/*.mjs', 'build/run-file.mjs'],
    rules: { 'no-restricted-properties': 'off' },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      'no-restricted-imports': 'off',
      'max-lines': ['error', { max: 600, skipBlankLines: true, skipComments: true }],
      'max-lines-per-function': 'off',
    },
  },
  prettier,
);
