import type { Pod } from '../core/pod.js';
import { podRequests } from '../pod-requests.js';
import type { PlannedNodeClaim } from './simulation-input.js';

interface Need { readonly cpu: number; readonly memory: number }

/** The smallest needs among `pods`: no other pod needs less of both CPU and memory. */
function smallestNeeds(pods: readonly Pod[]): Need[] {
  const needs: Need[] = [];
  for (const pod of pods) {
    const requests = podRequests(pod);
    const need = { cpu: requests['cpu'] ?? 0, memory: requests['memory'] ?? 0 };
    if (needs.some((n) => n.cpu <= need.cpu && n.memory <= need.memory)) continue;
    for (let i = needs.length - 1; i >= 0; i--) {
      const n = needs[i];
      if (n !== undefined && need.cpu <= n.cpu && need.memory <= n.memory) needs.splice(i, 1);
    }
    needs.push(need);
  }
  return needs;
}

/**
 * Whether a pod is placed by where other pods are (pod affinity or anti-affinity, a topology spread constraint): the
 * node it gets depends on the pods it will share with, and in a step those have not all arrived yet.
 */
function placedByOtherPods(pod: Pod): boolean {
  const { affinity, topologySpreadConstraints } = pod.spec;
  return affinity?.podAffinity !== undefined || affinity?.podAntiAffinity !== undefined || (topologySpreadConstraints?.length ?? 0) > 0;
}

/**
 * The planned NodeClaims a step may publish before its batch closes: the ones the batch's last pass would make too,
 * whatever else arrives. Such a claim
 * - has no room for any pod among `pods`: on the cheapest type planned, the CPU, memory or pod slots left beside its
 *   pods and DaemonSets hold none of them (any other constraint, a pod's NodePool, architecture or taints, could
 *   only keep a pod off it, so a claim counted with room may in fact be full, never the reverse);
 * - is as large as the largest claim of the pass: a smaller one holds the pass's leftovers, which the last pass
 *   would put beside the pods still to come (a 1,000-pod burst's steps made 20-27 nodes where one pass makes 14);
 * - holds no pod placed by where other pods are: a hostname-spread pod fills a medium node alone, where the last
 *   pass pairs it with an anti-affinity pod still to come on a large one (a mixed burst's steps made 427 nodes
 *   where one pass makes 335).
 */
export function filledClaims(claims: readonly PlannedNodeClaim[], pods: readonly Pod[]): PlannedNodeClaim[] {
  const needs = smallestNeeds(pods);
  const largest = Math.max(0, ...claims.map((c) => c.allocatable['cpu'] ?? 0));
  return claims.filter((claim) => {
    if ((claim.allocatable['cpu'] ?? 0) < largest || claim.pods.some(placedByOtherPods)) return false;
    const left = (name: string): number => (claim.allocatable[name] ?? 0) - (claim.requests[name] ?? 0);
    const slots = claim.allocatable['pods'] === undefined ? Infinity : claim.allocatable['pods'] - Math.max(claim.requests['pods'] ?? 0, claim.pods.length);
    if (slots < 1) return true;
    return !needs.some((n) => n.cpu <= left('cpu') && n.memory <= left('memory'));
  });
}
