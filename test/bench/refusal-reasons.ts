import type { ClusterTrace } from './stage-watch.js';

/**
 * Why kube-scheduler marked the burst's pods Unschedulable, most frequent first: its last message for each pod, with
 * every number written `N` so that "0/17 nodes" and "0/18 nodes" count as one reason. A pod planned into room that
 * kube-scheduler (or the extender's filter) then refuses shows here, with the filter's own words.
 */
export function refusalReasons(watch: Pick<ClusterTrace, 'pods'>, top = 5): string[] {
  const counts = new Map<string, number>();
  for (const trace of watch.pods.values()) {
    if (trace.unschedulableMessage === undefined) continue;
    const reason = trace.unschedulableMessage.replace(/\d+(\.\d+)?/g, 'N');
    counts.set(reason, (counts.get(reason) ?? 0) + 1);
  }
  return [...counts].sort((a, b) => b[1] - a[1]).slice(0, top).map(([reason, n]) => `${String(n)}× ${reason}`);
}
