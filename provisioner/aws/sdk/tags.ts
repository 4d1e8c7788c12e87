import type { Tag } from '@aws-sdk/client-ec2';
import { managedByTag } from '../../../domain/product-keys.js';
import { nodeClaimKey } from '../../../domain/karpenter-keys.js';
import { labels } from '../../../domain/well-known-labels.js';

export const tagKeys = {
  nodePool: labels.nodePool,
  nodeClaim: nodeClaimKey,
  nodeClass: labels.ec2NodeClass,
  eksClusterName: 'eks:eks-cluster-name',
  managedBy: managedByTag.key,
  cluster: (clusterName: string) => `kubernetes.io/cluster/${clusterName}`,
} as const;

export interface InstanceTagContext {
  readonly clusterName: string;
  readonly nodePoolName: string;
  readonly nodeClaimName: string;
  readonly nodeClassName: string;
  readonly userTags: Readonly<Record<string, string>>;
}

/**
 * Tags on every instance, volume and fleet we create. Ours are applied last so a NodeClass
 * cannot override them (the webhook also rejects those keys): garbage collection and List rely
 * on them to find exactly our instances.
 */
export function instanceTags(ctx: InstanceTagContext): Record<string, string> {
  return {
    ...ctx.userTags,
    [tagKeys.cluster(ctx.clusterName)]: 'owned',
    [tagKeys.eksClusterName]: ctx.clusterName,
    [tagKeys.nodePool]: ctx.nodePoolName,
    [tagKeys.nodeClaim]: ctx.nodeClaimName,
    [tagKeys.nodeClass]: ctx.nodeClassName,
    [managedByTag.key]: managedByTag.value,
  };
}

/**
 * Karpenter's launch tags, for a launch template and the network interfaces and spot requests it tags: the
 * instance's without the NodeClaim (so NodeClaims share templates) and without our managed-by, which only the
 * instances, volumes and fleet carry (nothing reads it elsewhere; ownership is `kubernetes.io/cluster/<name>`).
 */
export function launchTemplateTags(instance: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(instance).filter(([key]) => key !== tagKeys.nodeClaim && key !== tagKeys.managedBy),
  );
}

export function toEc2Tags(tags: Readonly<Record<string, string>>): Tag[] {
  return Object.entries(tags).map(([Key, Value]) => ({ Key, Value }));
}

export function fromEc2Tags(tags: readonly Tag[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const t of tags ?? []) if (t.Key !== undefined) out[t.Key] = t.Value ?? '';
  return out;
}
