import type * as k8s from '@kubernetes/client-node';
import { loadInstanceTypes } from '../../domain/instance-types/catalog.js';
import { labels as wellKnown } from '../../domain/well-known-labels.js';

export interface DemoSnapshot { pods: k8s.V1Pod[]; nodes: k8s.V1Node[]; events: k8s.CoreV1Event[] }

const catalog = new Map(loadInstanceTypes({ region: 'us-east-1' }).map((t) => [t.name, t]));

/** Price per hour of a launched node from the embedded catalog (offline prices; spot is an estimate). */
export function nodePrice(node: k8s.V1Node): number {
  const l = node.metadata?.labels ?? {};
  const type = catalog.get(l[wellKnown.instanceType] ?? '');
  const offering = type?.offerings.find((o) => o.capacityType === l[wellKnown.capacityType]) ?? type?.offerings[0];
  return offering?.price ?? 0;
}

const pad = (s: string, n: number): string => (s.length > n ? `${s.slice(0, n - 1)}…` : s.padEnd(n));

function appsByNode(pods: readonly k8s.V1Pod[]): Map<string, string[]> {
  const byNode = new Map<string, string[]>();
  for (const pod of pods) {
    const node = pod.spec?.nodeName;
    if (node) byNode.set(node, [...(byNode.get(node) ?? []), pod.metadata?.labels?.['app'] ?? '?']);
  }
  return byNode;
}

function nodeRow(node: k8s.V1Node, apps: readonly string[]): string {
  const l = node.metadata?.labels ?? {};
  const counts = [...new Set(apps)].map((a) => `${a}×${String(apps.filter((x) => x === a).length)}`).join(' ');
  return `${pad(node.metadata?.name ?? '', 22)}${pad(l[wellKnown.instanceType] ?? '', 14)}${pad(l[wellKnown.zone] ?? '', 12)}${pad(l[wellKnown.capacityType] ?? '', 10)}${pad(nodePrice(node).toFixed(4), 9)}${counts}`;
}

function waitingRow(pod: k8s.V1Pod, events: readonly k8s.CoreV1Event[]): string {
  const why = events.filter((e) => e.involvedObject.name === pod.metadata?.name && e.reason === 'FailedProvisioning').at(-1)?.message;
  return `waiting: ${pod.metadata?.name ?? ''}${why === undefined ? '' : `: ${why}`}`;
}

/** One screen of the demo: each real node with its type, zone, capacity type, price and pods. */
export function render(snapshot: DemoSnapshot, elapsedS: number): string {
  const real = snapshot.nodes.filter((n) => n.metadata?.labels?.['nodesmith.io/launchable'] !== 'true')
    .sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
  const byNode = appsByNode(snapshot.pods);
  const running = snapshot.pods.filter((p) => p.status?.phase === 'Running').length;
  const total = real.reduce((sum, n) => sum + nodePrice(n), 0);
  return [
    `t=${elapsedS.toFixed(0)}s  pods running ${String(running)}/${String(snapshot.pods.length)}  real nodes ${String(real.length)}  virtual (planned) nodes ${String(snapshot.nodes.length - real.length)}`,
    '',
    `${pad('NODE', 22)}${pad('TYPE', 14)}${pad('ZONE', 12)}${pad('CAPACITY', 10)}${pad('$/HOUR', 9)}PODS`,
    ...real.map((n) => nodeRow(n, byNode.get(n.metadata?.name ?? '') ?? [])),
    '',
    `total $${total.toFixed(4)}/hour`,
    ...snapshot.pods.filter((p) => !p.spec?.nodeName).map((p) => waitingRow(p, snapshot.events)),
  ].join('\n');
}
