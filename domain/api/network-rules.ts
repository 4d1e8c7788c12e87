import type { EC2NodeClassSpec, NetworkInterface } from './ec2nodeclass-schema.js';
import { networkInterfaceMessages, placementGroupMessages } from './schema-values.js';
import { fieldPath, problem, type Problem } from './problem.js';

/**
 * Karpenter's two networkInterfaces rules: a primary interface at card 0, device 0 (an empty list needs none: it
 * launches the default interface), and no index pair twice nor two EFA-only interfaces on one card. Karpenter's
 * second rule is one CEL expression with one message; the item that breaks it is named here so the user finds it.
 */
function checkInterfaces(list: readonly NetworkInterface[]): Problem[] {
  const out: Problem[] = [];
  const base = 'spec.networkInterfaces';
  if (list.length > 0 && !list.some((n) => n.networkCardIndex === 0 && n.deviceIndex === 0 && n.interfaceType === 'interface')) {
    out.push(problem(base, 'network-primary-interface', list.length, networkInterfaceMessages.primary));
  }
  const pairs = new Set<string>();
  const efaCards = new Set<number>();
  list.forEach((n, i) => {
    const pair = `${n.networkCardIndex}/${n.deviceIndex}`;
    if (pairs.has(pair)) out.push(problem(fieldPath(base, i), 'network-duplicate-index', pair, networkInterfaceMessages.unique));
    pairs.add(pair);
    if (n.interfaceType !== 'efa-only') return;
    if (efaCards.has(n.networkCardIndex)) out.push(problem(fieldPath(base, i), 'network-single-efa', n.networkCardIndex, networkInterfaceMessages.unique));
    efaCards.add(n.networkCardIndex);
  });
  return out;
}

/** networkInterfaces, connectionTracking and placementGroupSelector, with the messages of Karpenter's CRD rules. */
export function checkNetworking(spec: EC2NodeClassSpec): Problem[] {
  const out: Problem[] = spec.networkInterfaces ? checkInterfaces(spec.networkInterfaces) : [];
  const ct = spec.connectionTracking;
  if (ct && ct.tcpEstablishedTimeout === undefined && ct.udpStreamTimeout === undefined && ct.udpTimeout === undefined) {
    out.push(problem('spec.connectionTracking', 'connection-tracking-empty', ct, 'at least one of tcpEstablishedTimeout, udpStreamTimeout, or udpTimeout must be set'));
  }
  const pg = spec.placementGroupSelector;
  if (pg && pg.name === undefined && pg.id === undefined) {
    out.push(problem('spec.placementGroupSelector', 'placement-group-one-of', pg, placementGroupMessages.none));
  }
  if (pg?.name !== undefined && pg.id !== undefined) {
    out.push(problem('spec.placementGroupSelector', 'placement-group-one-of', pg, placementGroupMessages.both));
  }
  return out;
}
