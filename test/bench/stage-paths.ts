// Each pod's path through the stages of a burst, joined from what the bench saw (stage-watch.ts) and, for
// nodesmith, from its info log: the stages only nodesmith's extender and launcher see. Pure, so it is tested.
import { virtualNodePrefix } from '../../domain/api/virtual-node-name.js';
import type { LogLine } from './nodesmith-timeline.js';
import type { ClusterTrace } from './stage-watch.js';
import { runningRate, runningRateLine, stageTable, type PodStages, type StageColumn } from './stage-timeline.js';

export interface NodesmithLogTimes {
  /** When the first /filter call for each pod ("namespace/name") arrived, epoch ms. */
  readonly firstFilterMs: ReadonlyMap<string, number>;
  /** When the first bind call naming a virtual node arrived for each pod, and that node. */
  readonly virtualBind: ReadonlyMap<string, { readonly atMs: number; readonly node: string }>;
  /** When each NodeClaim's launch returned (CreateFleet answered and the instance is known), by NodeClaim name. */
  readonly launchedMs: ReadonlyMap<string, number>;
}

/**
 * The per-pod times in nodesmith's log from `startedMs` on. fastify logs 'request completed' when the reply is
 * sent, with the ms the call took: its arrival is the line's time less that. The extender names the pod on the
 * line, and for a bind the node (extender/routes.ts); prioritize names neither, so it is not taken for a filter.
 */
export function nodesmithLogTimes(lines: readonly LogLine[], startedMs: number): NodesmithLogTimes {
  const times = { firstFilterMs: new Map<string, number>(), virtualBind: new Map<string, { atMs: number; node: string }>(), launchedMs: new Map<string, number>() };
  for (const line of lines) {
    if ((line.time ?? 0) < startedMs) continue;
    if (line.msg === 'launched nodeclaim') noteLaunch(times.launchedMs, line);
    if (line.msg === 'request completed') noteCall(times, line);
  }
  return times;
}

function noteLaunch(launchedMs: Map<string, number>, line: LogLine): void {
  if (line.nodeClaim !== undefined && !launchedMs.has(line.nodeClaim)) launchedMs.set(line.nodeClaim, line.time ?? 0);
}

function noteCall(times: { firstFilterMs: Map<string, number>; virtualBind: Map<string, { atMs: number; node: string }> }, line: LogLine): void {
  const pod = line.res?.pod;
  if (pod === undefined) return;
  const arrivedMs = (line.time ?? 0) - (line.responseTime ?? 0);
  const node = line.res?.node;
  if (node === undefined) {
    if (!times.firstFilterMs.has(pod)) times.firstFilterMs.set(pod, arrivedMs);
  } else if (node.startsWith(virtualNodePrefix) && !times.virtualBind.has(pod)) {
    times.virtualBind.set(pod, { atMs: arrivedMs, node });
  }
}

/** nodesmith's stages, in the order a pod goes through them. */
export const nodesmithColumns: readonly StageColumn[] = [
  { key: 'filter', label: 'first extender filter call' },
  { key: 'unschedulable', label: 'marked Unschedulable' },
  { key: 'planned', label: 'planned (Nominated Event seen)' },
  { key: 'published', label: 'virtual node published' },
  { key: 'virtualBind', label: 'bind call to the virtual node' },
  { key: 'launched', label: 'instance launched (CreateFleet returned)' },
  { key: 'node', label: 'real Node created' },
  { key: 'bound', label: 'bound to the real node' },
  { key: 'running', label: 'Running' },
];

/** Karpenter's stages that the bench can see: it has no extender and no virtual node. */
export const karpenterColumns: readonly StageColumn[] = [
  { key: 'unschedulable', label: 'marked Unschedulable' },
  { key: 'nominated', label: 'Nominated Event seen' },
  { key: 'nodeClaim', label: 'its NodeClaim created (Event\'s, else its Node\'s)' },
  { key: 'node', label: 'Node created' },
  { key: 'bound', label: 'bound' },
  { key: 'running', label: 'Running' },
];

const virtualNodeOf = (message: string | undefined): string | undefined => /planned on virtual node (\S+)/.exec(message ?? '')?.[1];
const nodeClaimOf = (message: string | undefined): string | undefined => /nodeclaim\/([\w.-]+)/.exec(message ?? '')?.[1];
const when = (map: ReadonlyMap<string, number>, name: string | undefined): number | undefined => (name === undefined ? undefined : map.get(name));

/**
 * nodesmith's path of each pod. The virtual node is the one its bind call named (the one launched for it), else
 * the one its Nominated Event named; its NodeClaim has the virtual node's name without the prefix. The real Node
 * is the one the pod was bound to.
 */
export function nodesmithPaths(trace: ClusterTrace, log: NodesmithLogTimes): PodStages[] {
  return [...trace.pods.values()].map((pod) => {
    const nominated = trace.nominated.get(pod.key);
    const bind = log.virtualBind.get(pod.key);
    const virtualNode = bind?.node ?? virtualNodeOf(nominated?.message);
    return {
      createdMs: pod.createdMs,
      stages: {
        created: pod.createdMs, filter: log.firstFilterMs.get(pod.key), unschedulable: pod.unschedulableMs, planned: nominated?.atMs,
        published: when(trace.nodesMs, virtualNode), virtualBind: bind?.atMs,
        launched: when(log.launchedMs, virtualNode?.slice(virtualNodePrefix.length)),
        node: when(trace.nodesMs, pod.nodeName), bound: pod.boundMs, running: pod.runningMs,
      },
    };
  });
}

/**
 * Karpenter's path of each pod. Its NodeClaim is the one its Nominated Event names ("Pod should schedule on:
 * nodeclaim/<name>"), else the one its Node came from: Karpenter rate-limits its Nominated Events (10 of 300
 * pods had one in a burst), so the Event alone would time few pods.
 */
export function karpenterPaths(trace: ClusterTrace): PodStages[] {
  return [...trace.pods.values()].map((pod) => {
    const nominated = trace.nominated.get(pod.key);
    return {
      createdMs: pod.createdMs,
      stages: {
        created: pod.createdMs, unschedulable: pod.unschedulableMs, nominated: nominated?.atMs, nodeClaim: when(trace.nodeClaimsMs, nodeClaimOf(nominated?.message) ?? trace.nodeClaimOfNode.get(pod.nodeName ?? '')),
        node: when(trace.nodesMs, pod.nodeName), bound: pod.boundMs, running: pod.runningMs,
      },
    };
  });
}

/** The printed timeline: the table of stages (from each pod's creation) and kwok's rate of turning pods Running. */
export function timelineReport(title: string, trace: ClusterTrace, paths: readonly PodStages[], columns: readonly StageColumn[]): string {
  const table = stageTable(paths, [{ key: 'created', label: 'created (seen by the bench)' }, ...columns]);
  return `${title}\n${table.split('\n').map((l) => `  ${l}`).join('\n')}\n  ${runningRateLine(runningRate([...trace.pods.values()]))}\n`;
}
