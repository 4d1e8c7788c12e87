import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { systemClock } from '../domain/clock.js';
import type { Materializer } from '../provisioner/index.js';
import { countedEventRecorder } from '../provisioner/kube/events.js';
import { kubeKarpenterReads } from '../provisioner/kube/karpenter-reads.js';
import type { KubeRest } from '../provisioner/kube/kube-rest.js';
import { KubeNodePoolStatusWriter } from '../provisioner/kube/nodepool-status-client.js';
import type { ClusterState } from '../provisioner/state/cluster-state.js';
import { KarpenterGuard } from '../provisioner/takeover/karpenter-guard.js';
import { TakeoverMetrics } from '../provisioner/takeover/metrics.js';
import type { NodesmithConfig } from './app-config.js';
import type { RunnerHooks } from './runners.js';

export interface GuardParts {
  /** The `takeover.karpenter` controller, for the takeover runner (cli/controllers.ts). */
  readonly guard: KarpenterGuard;
  /** Leader and Karpenter not running (or overridden): the gate for provisioning, disruption, lifecycle and GC. */
  readonly mayAct: () => boolean;
  /** The extender's materializer, refusing launches while Karpenter runs. */
  readonly guardMaterializer: (materializer: Materializer) => Materializer;
  readonly runner: RunnerHooks;
}

/** The Karpenter guard and the gate it puts on everything that acts. */
export function karpenterGuard(w: { config: NodesmithConfig; api: KubeRest; state: ClusterState; registry: Registry; log: Logger; isLeader: () => boolean }): GuardParts {
  const log = w.log.child({ component: 'takeover.karpenter' });
  const guard = new KarpenterGuard({
    reads: kubeKarpenterReads(w.api), leases: w.config.karpenterGuard.leases, deployments: w.config.karpenterGuard.deployments,
    nodePools: () => w.state.nodePools.values(), writer: new KubeNodePoolStatusWriter(w.api),
    recorder: countedEventRecorder(w.api, { clock: systemClock, registry: w.registry, log }),
    clock: systemClock, override: w.config.karpenterGuard.override, metrics: new TakeoverMetrics(w.registry), log,
  });
  return {
    guard,
    mayAct: () => w.isLeader() && !guard.isBlocking(),
    guardMaterializer: (materializer) => ({
      materialize: (virtualNodeName) => (guard.isBlocking() ? Promise.reject(new Error(guard.blockingReason())) : materializer.materialize(virtualNodeName)),
    }),
    runner: { log },
  };
}
