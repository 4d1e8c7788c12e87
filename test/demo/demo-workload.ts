import { labels as wellKnown } from '../../domain/well-known-labels.js';
import type { DeploymentSpec } from '../e2e/e2e-support.js';

/** About fifty pods with the constraints people actually use, plus one that nothing can serve. */
export const demoWorkload: readonly DeploymentSpec[] = [
  { name: 'web', replicas: 16, cpu: '1', memory: '2Gi' },
  { name: 'api-arm64', replicas: 8, cpu: '500m', memory: '1Gi', nodeSelector: { [wellKnown.arch]: 'arm64' } },
  { name: 'batch-spot', replicas: 8, cpu: '2', memory: '4Gi', nodeSelector: { [wellKnown.capacityType]: 'spot' } },
  {
    name: 'zonal', replicas: 9, cpu: '250m', memory: '512Mi',
    topologySpreadConstraints: [{ maxSkew: 1, topologyKey: wellKnown.zone, whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'zonal' } } }],
  },
  {
    name: 'cache', replicas: 4, cpu: '1', memory: '4Gi',
    affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: wellKnown.hostname, labelSelector: { matchLabels: { app: 'cache' } } }] } },
  },
  { name: 'trainer-gpu', replicas: 1, cpu: '2', memory: '8Gi', resources: { 'nvidia.com/gpu': '1' } },
  { name: 'impossible', replicas: 1, cpu: '900', memory: '1Gi' },
];

/** Two NodePools in the shape of the examples: on-demand for most, spot for batch work. */
export const demoNodePools = {
  general: `
        - { key: karpenter.sh/capacity-type, operator: In, values: [on-demand] }
        - { key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m, r, g] }`,
  spot: `
        - { key: karpenter.sh/capacity-type, operator: In, values: [spot] }
        - { key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m, r] }`,
};

/** Empty nodes go 10 s after their last pod, all at once (the default budget, 10%, would take them one by one). */
export const demoDisruption = `  disruption:
    consolidateAfter: 10s
    budgets: [{ nodes: "100%" }]`;
