/*
 * Values a CapacityBuffer's fields take, apart from its TypeBox schema: admission and `nodesmith validate` check
 * them without loading TypeBox, which only builds the schemas (test/cli/lazy-imports.test.ts).
 */

/** The one strategy Karpenter (and nodesmith) provisions for: placeholder room the autoscaler keeps free. */
export const activeCapacityStrategy = 'buffer.x-k8s.io/active-capacity';

/** The workloads a `scalableRef` may name: those with a pod template and a replica count (group apps). */
export const scalableKinds = ['Deployment', 'StatefulSet', 'ReplicaSet'] as const;
