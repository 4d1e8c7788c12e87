// What the bench sees of a burst through the API server, each transition stamped with the time the bench saw it:
// the objects' own timestamps have whole seconds only (creationTimestamp, Event times, conditions), too coarse
// for stages a few hundred ms apart.
import * as k8s from '@kubernetes/client-node';
import type { BindWatch } from './bound-curve.js';

/** One pod's transitions, epoch ms as the bench saw them. */
export interface PodTrace {
  /** "namespace/name", as nodesmith's log names pods. */
  readonly key: string;
  readonly createdMs: number;
  /** PodScheduled=False with reason Unschedulable: kube-scheduler tried and found no node. */
  readonly unschedulableMs?: number;
  /** kube-scheduler's message the last time it marked the pod Unschedulable (its nodes' and the extender's reasons). */
  readonly unschedulableMessage?: string;
  readonly boundMs?: number;
  readonly nodeName?: string;
  readonly runningMs?: number;
}

export interface ClusterTrace {
  /** By pod uid. */
  readonly pods: ReadonlyMap<string, PodTrace>;
  /** Nodes (virtual and real) created after the start, by name: when the bench first saw each. */
  readonly nodesMs: ReadonlyMap<string, number>;
  /** Each pod's first Nominated Event (by "namespace/name"): when it was seen, and its message. */
  readonly nominated: ReadonlyMap<string, { readonly atMs: number; readonly message: string }>;
  /** NodeClaims created after the start, by name. */
  readonly nodeClaimsMs: ReadonlyMap<string, number>;
  /** The NodeClaim each Node came from (NodeClaim status.nodeName), by Node name. */
  readonly nodeClaimOfNode: ReadonlyMap<string, string>;
}

export type StageWatch = ClusterTrace & BindWatch;

/** Where a watch's ends are noted: the bench's start, and the list they go in. */
export interface WatchLog {
  readonly startedMs: number;
  readonly interruptions: string[];
}

/**
 * Runs a watch and starts it again whenever it ends before `stop` (the API server closes watches after a while);
 * each end is noted. It resumes from the last resourceVersion it saw (bookmarks included), as client-go's reflector
 * does: a restart without one hands over every object again as ADDED, load the bench would add to the burst it
 * measures, and at 1,000 pods the API server ended the bench's watch a dozen times in 20 s. Only a 410 Gone (too old
 * to resume) starts again from now, and callers keep first sightings only. `never`: any handler of one object type
 * fits, as the client hands over whatever the path holds.
 */
export async function keepWatching(kc: k8s.KubeConfig, path: string, onEvent: (phase: string, object: never) => void, log: WatchLog): Promise<() => void> {
  let stopped = false;
  let controller: AbortController | undefined;
  let version: string | undefined;
  const start = async (): Promise<void> => {
    const from = version === undefined ? {} : { resourceVersion: version, allowWatchBookmarks: true };
    controller = await new k8s.Watch(kc).watch(path, from, (phase: string, object: unknown) => {
      const o = object as { metadata?: { resourceVersion?: string }; code?: number };
      if (phase === 'ERROR') {
        if (o.code === 410) version = undefined;
        return;
      }
      version = o.metadata?.resourceVersion ?? version;
      if (phase !== 'BOOKMARK') onEvent(phase, object as never);
    }, (error: unknown) => {
      if (stopped) return;
      log.interruptions.push(`${((Date.now() - log.startedMs) / 1000).toFixed(1)}s ${path}: ${error instanceof Error ? error.message : 'closed by the server'}`);
      void start().catch((e: unknown) => log.interruptions.push(String(e)));
    });
  };
  await start();
  return () => { stopped = true; controller?.abort(); };
}

/** When each pod of the trace was first seen in one state (epoch ms), for the pods seen in it. */
export function stageTimes(watch: ClusterTrace, pick: (p: PodTrace) => number | undefined): number[] {
  return [...watch.pods.values()].flatMap((p) => {
    const at = pick(p);
    return at === undefined ? [] : [at];
  });
}

const unschedulable = (pod: k8s.V1Pod): k8s.V1PodCondition | undefined => pod.status?.conditions?.find((c) => c.type === 'PodScheduled' && c.status === 'False' && c.reason === 'Unschedulable');

/**
 * Made before the start (by whole seconds, as creationTimestamp has them): not part of this burst. A watch hands
 * over the JSON as parsed, so the "Date" the types promise is a string here: `new Date` takes either.
 */
const before = (created: Date | string | undefined, startedMs: number): boolean => created !== undefined && new Date(created).getTime() < Math.floor(startedMs / 1000) * 1000;

/** The pod's trace after seeing it now: states seen before keep their first time. */
function nextTrace(seen: PodTrace, pod: k8s.V1Pod, now: number): PodTrace {
  const nodeName = pod.spec?.nodeName ?? '';
  const refused = unschedulable(pod);
  return {
    ...seen,
    ...(seen.unschedulableMs === undefined && refused !== undefined ? { unschedulableMs: now } : {}),
    ...(refused?.message === undefined ? {} : { unschedulableMessage: refused.message }),
    ...(seen.boundMs === undefined && nodeName !== '' ? { boundMs: now, nodeName } : {}),
    ...(seen.runningMs === undefined && pod.status?.phase === 'Running' ? { runningMs: now } : {}),
  };
}

/** Keeps the first time each pod of this burst was seen in each state. */
function podRecorder(pods: Map<string, PodTrace>, startedMs: number): (phase: string, pod: k8s.V1Pod) => void {
  return (_phase, pod) => {
    const uid = pod.metadata?.uid;
    if (uid === undefined || before(pod.metadata?.creationTimestamp, startedMs)) return;
    const now = Date.now();
    pods.set(uid, nextTrace(pods.get(uid) ?? { key: `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`, createdMs: now }, pod, now));
  };
}

/** First sighting by name of objects created after the start. */
function firstSeen(into: Map<string, number>, startedMs: number): (phase: string, object: k8s.KubernetesObject) => void {
  return (_phase, object) => {
    const name = object.metadata?.name;
    if (name !== undefined && !into.has(name) && !before(object.metadata?.creationTimestamp, startedMs)) into.set(name, Date.now());
  };
}

/** First sighting of each NodeClaim, and the Node it became once its status names one. */
function nodeClaimRecorder(seenMs: Map<string, number>, ofNode: Map<string, string>, startedMs: number): (phase: string, claim: k8s.KubernetesObject & { status?: { nodeName?: string } }) => void {
  const first = firstSeen(seenMs, startedMs);
  return (phase, claim) => {
    first(phase, claim);
    const node = claim.status?.nodeName;
    if (node !== undefined && claim.metadata?.name !== undefined) ofNode.set(node, claim.metadata.name);
  };
}

/**
 * Watches the namespace's pods and Events, the Nodes and (if the CRD is there) the NodeClaims from now on. Also a
 * BindWatch (created and bound ms after the start, by pod uid) for the bound curve, from the same pod watch.
 */
export async function watchStages(kc: k8s.KubeConfig, namespace: string, startedMs: number): Promise<StageWatch> {
  const pods = new Map<string, PodTrace>();
  const nodesMs = new Map<string, number>();
  const nodeClaimsMs = new Map<string, number>();
  const nodeClaimOfNode = new Map<string, string>();
  const nominated = new Map<string, { atMs: number; message: string }>();
  const interruptions: string[] = [];
  const log = { startedMs, interruptions };
  const onEvent = (_phase: string, event: k8s.CoreV1Event): void => {
    const o = event.involvedObject;
    const key = `${o.namespace ?? ''}/${o.name ?? ''}`;
    if (event.reason === 'Nominated' && o.kind === 'Pod' && !nominated.has(key) && !before(event.metadata.creationTimestamp, startedMs)) nominated.set(key, { atMs: Date.now(), message: event.message ?? '' });
  };
  const stops = [
    await keepWatching(kc, `/api/v1/namespaces/${namespace}/pods`, podRecorder(pods, startedMs), log),
    await keepWatching(kc, '/api/v1/nodes', firstSeen(nodesMs, startedMs), log),
    await keepWatching(kc, `/api/v1/namespaces/${namespace}/events`, onEvent, log),
    await keepWatching(kc, '/apis/karpenter.sh/v1/nodeclaims', nodeClaimRecorder(nodeClaimsMs, nodeClaimOfNode, startedMs), log).catch(() => () => undefined),
  ];
  const relative = (pick: (p: PodTrace) => number | undefined): Map<string, number> => new Map([...pods].flatMap(([uid, p]) => {
    const at = pick(p);
    return at === undefined ? [] : [[uid, at - startedMs] as const];
  }));
  return {
    pods, nodesMs, nominated, nodeClaimsMs, nodeClaimOfNode, interruptions,
    get createdAtMs() { return relative((p) => p.createdMs); },
    get boundAtMs() { return relative((p) => p.boundMs); },
    stop: () => { for (const stop of stops) stop(); },
  };
}
