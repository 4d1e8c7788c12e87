/**
 * The kinds whose pods nodesmith checks, keyed as `apiVersion/kind`, with where each keeps its pod template (a Pod is
 * its own, `[]`). Workloads carry the steering annotations and requests on their template; they are checked there.
 * Values only, so the lazy kind table (api-kind-loaders.ts) can name these kinds without loading their rules.
 */
export const podTemplatePaths = {
  'apps/v1/Deployment': ['spec', 'template'],
  'apps/v1/StatefulSet': ['spec', 'template'],
  'apps/v1/ReplicaSet': ['spec', 'template'],
  'apps/v1/DaemonSet': ['spec', 'template'],
  'batch/v1/Job': ['spec', 'template'],
  'batch/v1/CronJob': ['spec', 'jobTemplate', 'spec', 'template'],
  'v1/Pod': [],
} as const satisfies Readonly<Record<string, readonly string[]>>;

export type PodKindKey = keyof typeof podTemplatePaths;

export const podKindKeys = Object.keys(podTemplatePaths) as PodKindKey[];
