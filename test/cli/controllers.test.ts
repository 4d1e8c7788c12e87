// What `nodesmith run` starts is one list (cli/controllers.ts), built here from the wiring's own parts over fakes and
// started by the one place that makes ControllerRunners (cli/runners.ts). These tests fail when the list loses a
// controller, names one twice or under another name, puts it on the wrong side of the Lease, or when a controller
// is started outside it.
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import t from 'tap';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { FakeClock } from '../../domain/clock.js';
import { FakeCloudProvider } from '../../domain/cloud/fake-cloud-provider.js';
import { ReservationAvailability } from '../../domain/cloud/reservation-availability.js';
import { UnavailableOfferings } from '../../domain/cloud/unavailable-offerings.js';
import { BufferRoom } from '../../provisioner/buffers/buffer-room.js';
import { silentLogger, type Controller } from '../../provisioner/runtime/controller-runner.js';
import { ApiConnection } from '../../provisioner/kube/api-connection.js';
import { KubeRest } from '../../provisioner/kube/kube-rest.js';
import { NodeOverlays } from '../../provisioner/pricing/node-overlays.js';
import { ClusterState } from '../../provisioner/state/cluster-state.js';
import type { NodesmithConfig } from '../../cli/app-config.js';
import { defaultPeriodsMs, type PeriodicController } from '../../cli/controller-periods.js';
import { leaderStopOrder, runList, type Listed, type ListedController, type Loop, type RunnerName } from '../../cli/controllers.js';
import { leaderParts } from '../../cli/leader-wiring.js';
import { catalogControllers, pricedInstanceTypes, reservedCapacity } from '../../cli/nodeclass-wiring.js';
import { parseRunFlags } from '../../cli/run-flags.js';
import { startList, type RunnerHooks } from '../../cli/runners.js';
import { karpenterGuard } from '../../cli/takeover-wiring.js';
import { FakeEventRecorder } from '../fakes/fake-cluster.js';
import { FakeInterruptionQueue } from '../fakes/fake-interruption-queue.js';
import { InMemoryNodeClaimStore } from '../fakes/in-memory-nodeclaim-store.js';
import { staticTarget } from '../fakes/kube-targets.js';

const everyGate = '--feature-gates=NodeRepair=true,StaticCapacity=true,NodeOverlay=true,CapacityBuffer=true,SpotToSpotConsolidation=true';
const log = pino({ level: 'silent' });

function configOf(...flags: string[]): NodesmithConfig {
  const config = parseRunFlags(['--cluster-name=c', ...flags], {});
  if (Array.isArray(config)) throw new Error(config.join('; '));
  return config;
}

/** A loop that only says when it starts and stops. */
function recordingLoop(name: string, record: string[]): Loop {
  return { start: () => { record.push(`${name} started`); }, stop: () => { record.push(`${name} stopped`); return Promise.resolve(); } };
}

/** The list `nodesmith run` builds for this configuration, from the parts the wiring files build over fakes. */
function wiredList(config: NodesmithConfig, loops: { provisioner: Loop; queue?: Loop } = { provisioner: recordingLoop('provisioner', []) }): { list: Listed[]; hooks: Partial<Record<RunnerName, RunnerHooks>>; built: Controller[]; registry: Registry; close: () => Promise<void> } {
  const clock = new FakeClock(1_000_000);
  const api = new KubeRest(new ApiConnection(staticTarget('https://127.0.0.1:1', 'token')));
  const ctx = {
    config, api, state: new ClusterState(), registry: new Registry(), log, isLeader: () => false, mayAct: () => false,
    overlays: config.nodeOverlay === true ? new NodeOverlays() : undefined, buffers: config.capacityBuffer === true ? new BufferRoom() : undefined,
  };
  const guard = karpenterGuard(ctx);
  const close = (): Promise<void> => api.close();
  if (!config.components.provisioner) return { list: runList({ config, ...(config.components.extender ? { guard: guard.guard } : {}) }), hooks: { takeover: guard.runner }, built: [guard.guard], registry: ctx.registry, close };
  const cloud = new FakeCloudProvider(clock);
  const aws = {
    cloudProviderFor: () => cloud, nodeClassResolver: { resolve: () => Promise.reject(new Error('not resolved here')) },
    instanceProfiles: { get: () => Promise.resolve(undefined), ensure: () => Promise.resolve(), delete: () => Promise.resolve() },
    interruptionQueue: new FakeInterruptionQueue(), unavailableOfferings: new UnavailableOfferings(clock), instanceHealth: { unhealthy: () => Promise.resolve([]) },
    capacityReservations: { list: () => Promise.resolve([]) }, reservationAvailability: new ReservationAvailability(clock),
    instanceTypes: { describe: () => Promise.reject(new Error('offline')) }, onDemandPrices: { current: () => Promise.reject(new Error('offline')) },
  };
  const priced = pricedInstanceTypes(config, { current: () => Promise.resolve(new Map()) }, log);
  const events = new FakeEventRecorder();
  const nodeClaims = new InMemoryNodeClaimStore(clock);
  const leader = leaderParts({ ...ctx, wake: () => undefined }, {
    aws, priced, events, nodeClaims, provisioner: loops.provisioner,
    catalog: catalogControllers(priced, aws, { state: ctx.state, events, log }),
    reserved: reservedCapacity({ api, state: ctx.state, aws, nodeClaims, priced, log, enabled: config.reservedCapacity !== false }),
    materializer: { materialize: () => Promise.reject(new Error('no launches here')) },
  });
  const parts = loops.queue === undefined ? leader.parts : { ...leader.parts, interruption: { ...leader.parts.interruption, queue: loops.queue } };
  return { list: runList({ config, guard: guard.guard, leader: parts }), hooks: { takeover: guard.runner, ...leader.hooks }, built: [guard.guard, ...controllersBuilt(leader.parts)], registry: ctx.registry, close };
}

/** Every controller among the parts the wiring built, however deep. */
function controllersBuilt(parts: object): Controller[] {
  const isController = (v: unknown): v is Controller => typeof v === 'object' && v !== null && 'reconcile' in v && typeof v.reconcile === 'function';
  return Object.values(parts).flatMap((v: unknown) => {
    if (isController(v)) return [v];
    return typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === Object.prototype ? controllersBuilt(v) : [];
  });
}

const controllersIn = (list: readonly Listed[]): ListedController[] => list.filter((e): e is ListedController => 'controller' in e);

void t.test('nodesmith run with every component and gate starts these, in this order, each named once as it runs', async (t) => {
  const { list, built, close } = wiredList(configOf('--interruption-queue=q', '--extender-cert-file=/tls/crt', '--extender-key-file=/tls/key', everyGate));
  t.same(list.map((e) => e.name), [
    'provisioner.state', 'provisioner.leader', 'takeover.karpenter', 'interruption',
    'nodeclaim.launch', 'nodeclaim.registration', 'nodeclaim.liveness', 'nodeclaim.termination', 'nodeclaim.expiration', 'nodeclaim.disruption.drift', 'node.health',
    'gc.virtual_nodes', 'gc.virtual_node_pods', 'gc.instances', 'gc.nodeclaims', 'nodepool.readiness', 'nodepool.usage',
    'nodeclass.instanceprofile', 'nodeclass.status', 'pricing.spot', 'providers.instancetype', 'providers.pricing.ondemand', 'nodeclass.catalogsource',
    'nodeclass.capacityreservation', 'capacityreservation.expiration', 'capacityreservation.capacitytype', 'interruption.instancestatus',
    'nodeoverlay.status', 'capacitybuffer', 'provisioningrequest', 'dra.claim_handover', 'nodeclaim.consolidatable', 'disruption', 'provisioner.plan', 'provisioner.heartbeat', 'static.replicas',
    'extender', 'extender.tls', 'webhooks', 'webhooks.tls', 'health',
  ]);
  t.equal(new Set(list.map((e) => e.name)).size, list.length, 'no name twice');
  t.same(controllersIn(list).filter((e) => e.controller.name !== e.name), [], 'each controller is listed under the name it logs and counts by');
  t.same(built.filter((c) => !controllersIn(list).some((e) => e.controller === c)).map((c) => c.name), [], 'every controller the wiring builds is on the list');
  t.ok(list.every((e) => e.period === 'watch events' || e.period === 'pending pods' || e.period === 'long poll' || e.period === 'requests' || e.period > 0), 'each has a period');
  await close();
});

void t.test('only the guard runs on a leader that Karpenter keeps still, and the informers, the Lease and the servers run on every replica', async (t) => {
  const { list, close } = wiredList(configOf('--interruption-queue=q', everyGate));
  const named = (lease: string): string[] => list.filter((e) => e.lease === lease).map((e) => e.name);
  t.same(named('leader'), ['takeover.karpenter']);
  t.same(named('every replica'), ['provisioner.state', 'provisioner.leader', 'extender', 'webhooks', 'webhooks.tls', 'health']);
  t.equal(named('leader, Karpenter stopped').length, list.length - 7, 'everything else acts only for a leader Karpenter does not hold back');
  await close();
});

void t.test('a replica without the provisioner lists no controller of the leader but the guard its extender launches through', async (t) => {
  const webhooks = configOf('--components=webhooks');
  const webhooksOnly = wiredList({ ...webhooks, leaderElection: { ...webhooks.leaderElection, enabled: false } });
  t.same(webhooksOnly.list.map((e) => e.name), ['provisioner.state', 'webhooks', 'webhooks.tls', 'health']);
  await webhooksOnly.close();
  const extenderOnly = wiredList(configOf('--components=extender'));
  t.same(extenderOnly.list.map((e) => e.name), ['provisioner.state', 'provisioner.leader', 'takeover.karpenter', 'extender', 'health']);
  await extenderOnly.close();
});

void t.test('each controller on a runner is listed with its default period, the one its controller waits when idle', async (t) => {
  const { list, close } = wiredList(configOf('--interruption-queue=q', everyGate));
  const ownFlags = ['nodeclaim.disruption.drift', 'pricing.spot'];
  const listed = controllersIn(list).filter((e) => !ownFlags.includes(e.name));
  t.same(listed.map((e) => e.name).sort(), Object.keys(defaultPeriodsMs).sort(), 'controller-periods.ts has a default for every one, and for no other name');
  t.same(listed.filter((e) => e.period !== defaultPeriodsMs[e.name as PeriodicController]).map((e) => e.name), [], 'and the list runs each at it');
  const idle = listed.find((e) => e.name === 'gc.nodeclaims');
  t.equal((await idle?.controller.reconcile())?.requeueAfterMs, 120_000, 'the lost-NodeClaim GC, with nothing to do, waits its own 2 minutes');
  await close();
});

void t.test('--controller-periods shortens the named controllers\' periods in the list, and each waits at most that long', async (t) => {
  const { list, close } = wiredList(configOf('--controller-periods=gc.nodeclaims=10s,nodepool.usage=2s'));
  const entry = (name: string): ListedController | undefined => controllersIn(list).find((e) => e.name === name);
  t.equal(entry('gc.nodeclaims')?.period, 10_000, 'the list gives the lost-NodeClaim GC the period set');
  t.equal(entry('nodepool.usage')?.period, 2_000);
  t.equal(entry('gc.instances')?.period, 120_000, 'and leaves the others at their default');
  t.equal(entry('gc.nodeclaims')?.controller.name, 'gc.nodeclaims', 'the controller still runs under its name');
  t.equal((await entry('gc.nodeclaims')?.controller.reconcile())?.requeueAfterMs, 10_000, 'with nothing to do it comes back after the period set, not its 2 minutes');
  t.equal((await entry('nodepool.usage')?.controller.reconcile())?.requeueAfterMs, 2_000);
  await close();
});

/** Each listed controller swapped for one of the same name that counts its passes. */
function counted(list: readonly Listed[]): { list: Listed[]; passes: Map<string, number> } {
  const passes = new Map<string, number>();
  const counter = (name: string): Controller => ({ name, reconcile: () => { passes.set(name, (passes.get(name) ?? 0) + 1); return Promise.resolve({ requeueAfterMs: 3_600_000 }); } });
  return { list: list.map((e) => ('controller' in e ? { ...e, controller: counter(e.name) } : e)), passes };
}

/** Lets the runners finish their passes and park, then moves the clock past their idle wait. */
async function tick(clock: FakeClock): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
  clock.step(1_000);
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
}

void t.test('every leader runner\'s passes are counted in controller-runtime\'s reconcile metrics, as Karpenter counts each controller\'s', async (t) => {
  const { list, hooks, registry, close } = wiredList(configOf(everyGate));
  const clock = new FakeClock(1_000_000);
  const running = startList(list, { clock, gates: { leader: () => true, 'leader, Karpenter stopped': () => true }, hooks });
  await tick(clock);
  await running.stop(['takeover', ...leaderStopOrder]);
  const text = await registry.metrics();
  for (const name of ['nodeclaim.registration', 'disruption', 'nodeclaim.consolidatable', 'static.replicas']) {
    t.match(text, new RegExp(`^controller_runtime_reconcile_total\\{controller="${name}",result="(success|error)"\\} [1-9]`, 'm'), `${name}'s pass is counted`);
  }
  await close();
});

void t.test('a standby runs none of the listed controllers; the leader runs exactly the listed ones, the guard alone while Karpenter runs', async (t) => {
  const record: string[] = [];
  const wired = wiredList(configOf('--interruption-queue=q', everyGate), { provisioner: recordingLoop('provisioner', record), queue: recordingLoop('interruption', record) });
  const { list, passes } = counted(wired.list);
  const clock = new FakeClock(1_000_000);
  const gates = { leader: false, acting: false };
  const running = startList(list, { clock, gates: { leader: () => gates.leader, 'leader, Karpenter stopped': () => gates.acting }, hooks: wired.hooks });
  t.same(record, ['interruption started', 'provisioner started'], 'each loop starts once, in list order, though the planner is listed for both its loops');
  await tick(clock);
  t.same([...passes.keys()], [], 'a standby runs none');
  gates.leader = true;
  await tick(clock);
  t.same([...passes.keys()], ['takeover.karpenter'], 'the leader runs only the guard while Karpenter runs');
  gates.acting = true;
  await tick(clock);
  t.same([...passes.keys()].sort(), controllersIn(list).map((e) => e.name).sort(), 'the leader Karpenter leaves alone runs every listed controller');
  t.ok([...passes.values()].every((n) => n === 1), 'each once, on one runner');
  await running.stop(['takeover', ...leaderStopOrder]);
  await wired.close();
});

void t.test('the leader\'s runs stop as they always have: the guard on its own, the planner, static capacity, disruption, then the queue reader and the lifecycle runner', async (t) => {
  const record: string[] = [];
  const wired = wiredList(configOf('--interruption-queue=q', everyGate), { provisioner: recordingLoop('provisioner', record), queue: recordingLoop('interruption', record) });
  const { list } = counted(wired.list);
  const hooks = Object.fromEntries((['takeover', 'lifecycle', 'disruption', 'static'] as const).map((runner) => [runner, {
    log: silentLogger, wakes: () => () => { record.push(`${runner} wakes dropped`); }, afterStop: () => { record.push(`${runner} stopped`); return Promise.resolve(); },
  }]));
  const running = startList(list, { clock: new FakeClock(), gates: { leader: () => false, 'leader, Karpenter stopped': () => false }, hooks });
  record.length = 0;
  await running.stop(['takeover']);
  await running.stop(leaderStopOrder);
  t.same(record, [
    'takeover wakes dropped', 'takeover stopped', 'provisioner stopped', 'static wakes dropped', 'static stopped', 'disruption wakes dropped', 'disruption stopped',
    'lifecycle wakes dropped', 'interruption stopped', 'lifecycle stopped',
  ]);
  await wired.close();
});

void t.test('the list refuses a controller under another name, a name twice, and a runner asked to hold two Leases', (t) => {
  const c = (name: string): Controller => ({ name, reconcile: () => Promise.resolve({ requeueAfterMs: 1000 }) });
  const options = { clock: new FakeClock(), gates: { leader: () => false, 'leader, Karpenter stopped': () => false }, hooks: { lifecycle: { log: silentLogger } } };
  const entry = (name: string, controller: Controller, lease: Listed['lease'] = 'leader'): ListedController => ({ name, period: 1000, lease, runner: 'lifecycle', controller });
  t.throws(() => startList([entry('gc.instances', c('gc.nodeclaims'))], options), /names "gc.instances", but its controller runs as "gc.nodeclaims"/);
  t.throws(() => startList([entry('gc.instances', c('gc.instances')), entry('gc.instances', c('gc.instances'))], options), /names "gc.instances" twice/);
  t.throws(() => startList([entry('a', c('a')), entry('b', c('b'), 'leader, Karpenter stopped')], options), /runner "lifecycle" would run "b"/);
  t.throws(() => startList([{ ...entry('a', c('a')), runner: 'static' }], options), /runner "static", but nothing wired its hooks/);
  t.end();
});

/** Every TypeScript source file below a folder of the repository, tests aside. */
async function sourcesIn(folder: string): Promise<string[]> {
  const root = new URL('../..', import.meta.url).pathname;
  const entries = await readdir(join(root, folder), { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile() && e.name.endsWith('.ts')).map((e) => relative(root, join(e.parentPath, e.name)));
}

void t.test('no ControllerRunner is made but from the list, so nothing runs that the list does not name', async (t) => {
  const root = new URL('../..', import.meta.url).pathname;
  const files = [...(await sourcesIn('cli')), ...(await sourcesIn('provisioner'))];
  const making: string[] = [];
  for (const file of files) if ((await readFile(join(root, file), 'utf8')).includes('new ControllerRunner(')) making.push(file);
  t.same(making, ['cli/runners.ts']);
});
