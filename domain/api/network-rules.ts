import type { EC2NodeClassSpec, NetworkInterface } from './ec2nodeclass-schema.js';
import { fieldPath, problem, type Problem } from './problem.js';

function checkInterfaces(list: readonly NetworkInterface[]): Problem[] {
  const out: Problem[] = [];
  const base = 'spec.networkInterfaces';
  if (!list.some((n) => n.networkCardIndex === 0 && n.deviceIndex === 0 && n.interfaceType === 'interface')) {
    out.push(problem(base, 'network-primary-interface', list.length, "networkInterfaces must include a primary interface at networkCardIndex 0, deviceIndex 0 with interfaceType 'interface'"));
  }
  const pairs = new Set<string>();
  const efaCards = new Set<number>();
  list.forEach((n, i) => {
    const pair = `${n.networkCardIndex}/${n.deviceIndex}`;
    if (pairs.has(pair)) out.push(problem(fieldPath(base, i), 'network-duplicate-index', pair, `duplicate networkCardIndex/deviceIndex pair ${pair}`));
    pairs.add(pair);
    if (n.interfaceType !== 'efa-only') return;
    if (efaCards.has(n.networkCardIndex)) out.push(problem(fieldPath(base, i), 'network-single-efa', n.networkCardIndex, `at most one EFA interface per network card (card ${n.networkCardIndex})`));
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
  if (pg && (pg.name === undefined) === (pg.id === undefined)) {
    out.push(problem('spec.placementGroupSelector', 'placement-group-one-of', pg, "expected exactly one of ['name', 'id']"));
  }
  return out;
}
