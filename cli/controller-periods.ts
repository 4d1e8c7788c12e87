import type { Controller } from '../provisioner/runtime/controller-runner.js';
import { bufferResyncMs } from '../provisioner/buffers/buffer-controller.js';
import { consolidatablePeriodMs } from '../provisioner/disruption/consolidatable-writer.js';
import { disruptionPeriodMs } from '../provisioner/disruption/controller.js';
import { lostNodeClaimGcPeriodMs } from '../provisioner/gc/lost-nodeclaims.js';
import { orphanInstanceGcPeriodMs } from '../provisioner/gc/orphan-instances.js';
import { virtualNodePodGcPeriodMs } from '../provisioner/gc/virtual-node-pods.js';
import { virtualNodeGcPeriodMs } from '../provisioner/gc/virtual-nodes.js';
import { instanceStatusPeriodMs } from '../provisioner/interruption/instance-status-controller.js';
import { claimLaunchPeriodMs } from '../provisioner/launch/claim-launcher.js';
import { claimHandoverPeriodMs } from '../provisioner/lifecycle/claim-handover.js';
import { expirationPeriodMs } from '../provisioner/lifecycle/expiration.js';
import { livenessPeriodMs } from '../provisioner/lifecycle/liveness.js';
import { nodeHealthPeriodMs } from '../provisioner/lifecycle/node-health.js';
import { registrationPeriodMs } from '../provisioner/lifecycle/registration.js';
import { terminationPeriodMs } from '../provisioner/lifecycle/termination.js';
import { capacityBlockPeriodMs } from '../provisioner/nodeclass/capacity-block-expiration.js';
import { capacityReservationPeriodMs } from '../provisioner/nodeclass/capacity-reservation-controller.js';
import { catalogSourcePeriodMs } from '../provisioner/nodeclass/catalog-source-events.js';
import { instanceProfilePeriodMs } from '../provisioner/nodeclass/instance-profile-controller.js';
import { nodeClassStatusPeriodMs } from '../provisioner/nodeclass/nodeclass-status-controller.js';
import { reservedDemotionPeriodMs } from '../provisioner/nodeclass/reserved-capacity-demotion.js';
import { catalogRefreshMs } from '../provisioner/pricing/catalog-refresh.js';
import { nodeOverlayStatusPeriodMs } from '../provisioner/pricing/node-overlays.js';
import { nodePoolReadinessPeriodMs } from '../provisioner/provisioning/nodepool-readiness.js';
import { nodePoolUsagePeriodMs } from '../provisioner/provisioning/nodepool-usage.js';
import { provisioningRequestPeriodMs } from '../provisioner/provisioning-requests/provisioning-request-controller.js';
import { staticReplicasPeriodMs } from '../provisioner/static/static-replicas-controller.js';
import { karpenterGuardPeriodMs } from '../provisioner/takeover/karpenter-guard.js';
import { durationMs } from './duration-flag.js';

/**
 * The period of each controller a ControllerRunner runs (cli/controllers.ts lists them), by its name in that list:
 * the constant beside the controller, the longest it waits between passes when nothing wakes it.
 */
export const defaultPeriodsMs = {
  'takeover.karpenter': karpenterGuardPeriodMs,
  'nodeclaim.launch': claimLaunchPeriodMs,
  'nodeclaim.registration': registrationPeriodMs,
  'nodeclaim.liveness': livenessPeriodMs,
  'nodeclaim.termination': terminationPeriodMs,
  'nodeclaim.expiration': expirationPeriodMs,
  'node.health': nodeHealthPeriodMs,
  'gc.virtual_nodes': virtualNodeGcPeriodMs,
  'gc.virtual_node_pods': virtualNodePodGcPeriodMs,
  'gc.instances': orphanInstanceGcPeriodMs,
  'gc.nodeclaims': lostNodeClaimGcPeriodMs,
  'nodepool.readiness': nodePoolReadinessPeriodMs,
  'nodepool.usage': nodePoolUsagePeriodMs,
  'nodeclass.instanceprofile': instanceProfilePeriodMs,
  'nodeclass.status': nodeClassStatusPeriodMs,
  'providers.instancetype': catalogRefreshMs,
  'providers.pricing.ondemand': catalogRefreshMs,
  'nodeclass.catalogsource': catalogSourcePeriodMs,
  'nodeclass.capacityreservation': capacityReservationPeriodMs,
  'capacityreservation.expiration': capacityBlockPeriodMs,
  'capacityreservation.capacitytype': reservedDemotionPeriodMs,
  'interruption.instancestatus': instanceStatusPeriodMs,
  'nodeoverlay.status': nodeOverlayStatusPeriodMs,
  capacitybuffer: bufferResyncMs,
  provisioningrequest: provisioningRequestPeriodMs,
  'dra.claim_handover': claimHandoverPeriodMs,
  'nodeclaim.consolidatable': consolidatablePeriodMs,
  disruption: disruptionPeriodMs,
  'static.replicas': staticReplicasPeriodMs,
} as const satisfies Readonly<Record<string, number>>;

export type PeriodicController = keyof typeof defaultPeriodsMs;

/** Periods with a flag of their own, which also lengthens them (they are passed to their controller). */
const ownFlags: Readonly<Record<string, string>> = { 'nodeclaim.disruption.drift': '--drift-recheck-interval', 'pricing.spot': '--spot-price-refresh' };

const isPeriodic = (name: string): name is PeriodicController => Object.hasOwn(defaultPeriodsMs, name);

/** A period as the flag takes it: 500ms, 10s, 2m. */
const shown = (ms: number): string => (ms % 60_000 === 0 ? `${String(ms / 60_000)}m` : ms % 1000 === 0 ? `${String(ms / 1000)}s` : `${String(ms)}ms`);

/** One `name=duration` of the flag: the period in ms, or undefined with a problem that says what is wrong. */
function onePeriod(name: string, value: string, problems: string[]): number | undefined {
  const flag = 'controller-periods';
  if (ownFlags[name] !== undefined) { problems.push(`--${flag}: ${name}'s period is set with ${ownFlags[name]}`); return undefined; }
  if (!isPeriodic(name)) { problems.push(`--${flag}: no controller runs on a period as "${name}"; the names are those of cli/controllers.ts: ${Object.keys(defaultPeriodsMs).join(', ')}`); return undefined; }
  const before = problems.length;
  const ms = durationMs(value, `${flag} ${name}`, problems);
  if (problems.length > before) return undefined;
  const longest = defaultPeriodsMs[name];
  if (ms <= 0 || ms > longest) { problems.push(`--${flag} ${name} must be more than 0 and at most its default ${shown(longest)} (a period is shortened, never lengthened: it caps the controller's own wait); got "${value}"`); return undefined; }
  return ms;
}

/**
 * `--controller-periods gc.instances=10s,disruption=2s`: shorter periods for the controllers named, by their names in
 * cli/controllers.ts. Each is the longest its controller then waits between passes when nothing wakes it (a shorter
 * wait it asks for, while busy, still holds). Refuses unknown names, a name twice, and periods not above 0 or above
 * the default. Empty: every default.
 */
export function controllerPeriods(text: string, problems: string[]): Readonly<Partial<Record<PeriodicController, number>>> | undefined {
  const periods: Partial<Record<PeriodicController, number>> = {};
  for (const pair of text.split(',').map((p) => p.trim()).filter((p) => p !== '')) {
    const [name = '', value, extra] = pair.split('=').map((s) => s.trim());
    if (value === undefined || extra !== undefined || name === '') { problems.push(`--controller-periods takes name=duration pairs separated by commas; got "${pair}"`); continue; }
    if (isPeriodic(name) && periods[name] !== undefined) { problems.push(`--controller-periods names ${name} twice`); continue; }
    const ms = onePeriod(name, value, problems);
    if (ms !== undefined && isPeriodic(name)) periods[name] = ms;
  }
  return Object.keys(periods).length === 0 ? undefined : Object.freeze(periods);
}

/** The period the configuration gives a listed controller, and the controller run to it. */
export function periodic(name: PeriodicController, controller: Controller, periods: Readonly<Partial<Record<PeriodicController, number>>> | undefined): { period: number; controller: Controller } {
  const set = periods?.[name];
  if (set === undefined) return { period: defaultPeriodsMs[name], controller };
  // The controller's own requeue, capped: a busy controller's shorter wait and a computed next time (an expiry due
  // sooner) still hold, and its idle wait becomes the period set.
  return { period: set, controller: { name: controller.name, reconcile: async () => {
    const result = await controller.reconcile();
    return { requeueAfterMs: Math.min(result.requeueAfterMs, set) };
  } } };
}
