// The side-by-side race's workloads. `burst`: three plain Deployments on demand, the shape of Karpenter's own
// scale tests. `mixed`: what a real cluster adds and the first hides: the DaemonSets every node pays for (a CNI,
// kube-proxy, a log agent), a zone spread with maxSkew 1, a hostname spread, soft anti-affinity, and spot.
import type * as k8s from '@kubernetes/client-node';
import { projectPod } from '../../provisioner/kube/projection.js';
import type { DeploymentSpec } from '../e2e/e2e-support.js';
import { mixedDaemonSets, mixedDeployments } from '../e2e/mixed-workload.js';
import { toWire } from '../support/wire.js';
import type { NodeOffer } from './assignment-bound.js';
import { podClasses } from './assignment-bound.js';
import { burst } from './e2e-burst-bench.js';

export interface RaceWorkload {
  readonly name: 'burst' | 'mixed';
  /** The NodePool's karpenter.sh/capacity-type values. */
  readonly capacityTypes: readonly string[];
  /** Applied to kube-system before the burst, as a cluster has them before any workload. */
  readonly daemonSets: readonly k8s.V1DaemonSet[];
  readonly deployments: readonly DeploymentSpec[];
}

/** kube-proxy as clusters run it: on the host network, tolerating every taint. */
function kubeProxy(): k8s.V1DaemonSet {
  return {
    metadata: { name: 'kube-proxy', namespace: 'kube-system' },
    spec: {
      selector: { matchLabels: { app: 'kube-proxy' } },
      template: {
        metadata: { labels: { app: 'kube-proxy' } },
        spec: {
          terminationGracePeriodSeconds: 0, hostNetwork: true, tolerations: [{ operator: 'Exists' }],
          containers: [{ name: 'kube-proxy', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: '100m', memory: '64Mi' } } }],
        },
      },
    },
  };
}

export function raceWorkload(name: string, total: number): RaceWorkload {
  if (name === 'burst') return { name, capacityTypes: ['on-demand'], daemonSets: [], deployments: burst(total) };
  if (name === 'mixed') return { name, capacityTypes: ['spot', 'on-demand'], daemonSets: [...mixedDaemonSets(), kubeProxy()], deployments: mixedDeployments(total) };
  throw new Error(`--workload is burst or mixed, not "${name}"`);
}

/** CPU (millicores), memory (bytes) and pod slots the workload's DaemonSets take on every node. */
export function daemonOverhead(workload: RaceWorkload): { cpu: number; memory: number; pods: number } {
  const pods = workload.daemonSets.map((ds) => projectPod(toWire({ metadata: { name: ds.metadata?.name ?? '', namespace: 'kube-system' }, spec: ds.spec?.template.spec })));
  return podClasses(pods).reduce((sum, c) => ({ cpu: sum.cpu + c.cpu * c.count, memory: sum.memory + c.memory * c.count, pods: sum.pods + c.count }), { cpu: 0, memory: 0, pods: 0 });
}

/** The offers with the daemons' share taken off each node: a bound that ignored them would be one no cluster reaches. */
export function afterDaemons(offers: readonly NodeOffer[], overhead: { cpu: number; memory: number; pods: number }): NodeOffer[] {
  return offers
    .map((o) => ({ ...o, cpu: o.cpu - overhead.cpu, memory: o.memory - overhead.memory, pods: o.pods - overhead.pods }))
    .filter((o) => o.cpu > 0 && o.memory > 0 && o.pods > 0);
}
