import t from 'tap';
import type { NodesmithConfig } from '../../cli/app-config.js';
import { defaultKarpenterGuard, parseRunFlags } from '../../cli/run-flags.js';
import { runFlags } from './nodesmith-process.js';

/** A config as the product stack builds it for a child process, with every optional setting a test may turn on. */
const config: NodesmithConfig = {
  kubeconfig: '/tmp/stack/admin.kubeconfig',
  kubeEnv: {},
  components: { provisioner: true, extender: true, webhooks: true },
  cluster: { name: 'nodesmith-test', endpoint: 'https://127.0.0.1:6443', certificateAuthority: 'Q0E=', serviceCidr: '10.96.0.0/16' },
  kubernetesVersion: '1.36',
  aws: { region: 'us-west-2', endpoint: 'http://127.0.0.1:5000', amiParameterPrefix: '/test', interruptionQueue: 'soak-interruptions', spotPrices: 'catalog', spotPriceRefreshMs: 30_000 },
  zones: ['us-west-2a', 'us-west-2b'],
  extender: { host: '127.0.0.1', port: 10001 },
  webhooks: { host: '127.0.0.1', port: 10002, certFile: '/tmp/w.crt', keyFile: '/tmp/w.key', productServiceAccount: 'system:serviceaccount:nodesmith:nodesmith' },
  health: { host: '127.0.0.1', port: 10003, metricsNamespace: 'karpenter' },
  batch: { idleMs: 1_000, maxMs: 5_000 },
  earlyPlanningSchedulers: ['default-scheduler'],
  driftRecheckMs: 20_000,
  controllerPeriods: { 'gc.instances': 10_000, provisioningrequest: 2_000 },
  nodeRepair: true,
  staticCapacity: true,
  nodeOverlay: true,
  karpenterGuard: defaultKarpenterGuard(),
  leaderElection: { enabled: true, namespace: 'nodesmith', identity: 'e2e-1' },
  logLevel: 'warn',
};

// The soak ran nodesmith as a child process without its interruption queue (every spot interruption it sent was
// ignored) and on moto's flat spot prices instead of the catalog's (every spot launch took the alphabetically first
// type, c1.xlarge): runFlags had dropped those settings. What a test sets must reach the process.
void t.test('the flags of a child process carry every setting of the config it was built from', (t) => {
  const [command, ...flags] = runFlags(config);
  t.equal(command, 'run');
  const parsed = parseRunFlags(flags, {});
  if (Array.isArray(parsed)) throw new Error(`the flags do not parse: ${parsed.join('; ')}`);
  // The identity is the process's own (POD_NAME and a suffix), not a flag.
  t.has(parsed, { ...config, leaderElection: { enabled: true, namespace: 'nodesmith' } }, 'each setting comes back from the flags');
  t.end();
});
