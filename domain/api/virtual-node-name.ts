/**
 * Virtual ("launchable") nodes are Node objects that stand for a planned NodeClaim, not an
 * instance. Their names start with this prefix so that anything seeing only a node *name* (the
 * pods/binding admission webhook, whose Binding carries just `target.name`) can recognise them.
 * Real instances are named after their EC2 private DNS name (ip-10-0-0-1.ec2.internal) and never
 * match. The provisioner must name every virtual node `${virtualNodePrefix}<plan id>`.
 */
export const virtualNodePrefix = 'launchable-';

/** Takes `unknown`: admission objects reach it unchecked, and a non-string name is simply not a virtual node's. */
export function isVirtualNodeName(name: unknown): boolean {
  return typeof name === 'string' && name.startsWith(virtualNodePrefix);
}

/** The virtual node name for a planned NodeClaim name, e.g. `launchable-default-x7k2p`. */
export function virtualNodeName(planName: string): string {
  return `${virtualNodePrefix}${planName}`;
}
