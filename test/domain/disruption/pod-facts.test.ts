import t from 'tap';
import type { Pod } from '../../../domain/core/pod.js';
import { candidacy } from '../../../domain/disruption/candidate.js';
import { candidatePodFacts, isDrainedPod, isReschedulablePod } from '../../../domain/disruption/pod-facts.js';

function pod(over: { metadata?: Partial<Pod['metadata']>; spec?: Partial<Pod['spec']>; status?: Pod['status'] } = {}): Pod {
  return {
    metadata: { name: 'cart-0', namespace: 'shop', ...over.metadata },
    spec: { containers: [{ name: 'app' }], ...over.spec },
    ...(over.status === undefined ? {} : { status: over.status }),
  };
}

const daemon = { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'ds' }] };
const mirror = { annotations: { 'kubernetes.io/config.mirror': 'abc' } };

void t.test('which pods a drain evicts and which need a place elsewhere', (t) => {
  const cases: [string, Pod, boolean, boolean][] = [
    ['a plain running pod', pod({ status: { phase: 'Running' } }), true, true],
    ['a DaemonSet pod tolerating everything', pod({ metadata: daemon, spec: { containers: [], tolerations: [{ operator: 'Exists' }] } }), false, false],
    ['a DaemonSet pod without tolerations', pod({ metadata: daemon }), true, false],
    ['a pod tolerating karpenter.sh/disrupted', pod({ spec: { containers: [], tolerations: [{ key: 'karpenter.sh/disrupted', operator: 'Exists' }] } }), false, true],
    ['a mirror pod', pod({ metadata: mirror }), false, false],
    ['a pod owned by its Node', pod({ metadata: { ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'n' }] } }), false, false],
    ['a finished pod', pod({ status: { phase: 'Succeeded' } }), false, false],
    ['a terminating pod', pod({ metadata: { deletionTimestamp: '2026-11-23T12:00:00Z' } }), true, false],
  ];
  for (const [what, p, drained, reschedulable] of cases) {
    t.equal(isDrainedPod(p), drained, `${what}: drained ${drained}`);
    t.equal(isReschedulablePod(p), reschedulable, `${what}: reschedulable ${reschedulable}`);
  }
  t.end();
});

void t.test('a pod becomes candidate facts with its key, start time and PDB verdict', (t) => {
  const p = pod({ metadata: { annotations: { 'karpenter.sh/do-not-disrupt': '30m' } }, status: { phase: 'Running', startTime: '2026-11-23T12:00:00Z' } });
  t.same(candidatePodFacts(p, 'PDB shop/cart allows 0 evictions'), {
    key: 'shop/cart-0', leaving: false, evictable: true, annotations: { 'karpenter.sh/do-not-disrupt': '30m' },
    startTimeMs: Date.UTC(2026, 10, 23, 12), evictionBlock: 'PDB shop/cart allows 0 evictions',
  });
  t.same(candidatePodFacts(pod({ status: { phase: 'Failed' } }), undefined), { key: 'shop/cart-0', leaving: true, evictable: false });
  t.end();
});

void t.test('a do-not-disrupt duration read from a real pod holds its node until the pod has run that long', (t) => {
  const p = pod({ metadata: { annotations: { 'karpenter.sh/do-not-disrupt': '30m' } }, status: { phase: 'Running', startTime: '2026-11-23T12:00:00Z' } });
  const node = {
    name: 'n', managed: true, hasNode: true, initialized: true, deleting: false, inCommand: false, nominated: false,
    labels: { 'karpenter.sh/nodepool': 'default' }, annotations: {}, pods: [candidatePodFacts(p, undefined)],
  };
  const context = { disruptionClass: 'graceful' as const, nodePools: new Set(['default']) };
  t.equal(candidacy(node, { ...context, nowMs: Date.UTC(2026, 10, 23, 12, 29) }).candidate, false);
  t.equal(candidacy(node, { ...context, nowMs: Date.UTC(2026, 10, 23, 12, 30) }).candidate, true);
  t.end();
});
