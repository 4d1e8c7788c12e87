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
 * The planned NodeClaims that no pod among `pods` could still join: on the cheapest type planned, the CPU, memory or
 * pod slots left beside its pods and DaemonSets hold none of them. Such a node is the same whatever else arrives,
 * so it can be published before the batch closes. Any other constraint (a pod's NodePool, architecture, taints)
 * is not looked at: it could only keep a pod off the node, so a claim counted as having room may in fact be full,
 * never the reverse.
 */
export function filledClaims(claims: readonly PlannedNodeClaim[], pods: readonly Pod[]): PlannedNodeClaim[] {
  const needs = smallestNeeds(pods);
  return claims.filter((claim) => {
    const left = (name: string): number => (claim.allocatable[name] ?? 0) - (claim.requests[name] ?? 0);
    const slots = claim.allocatable['pods'] === undefined ? Infinity : claim.allocatable['pods'] - Math.max(claim.requests['pods'] ?? 0, claim.pods.length);
    if (slots < 1) return true;
    return !needs.some((n) => n.cpu <= left('cpu') && n.memory <= left('memory'));
  });
}
