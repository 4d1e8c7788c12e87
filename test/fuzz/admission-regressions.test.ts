// Failures the admission fuzzer found (test/fuzz/admission-fuzz.test.ts, seed 17), each kept as a plain case:
// every one used to end in an "internal error" denial (a TypeError or a stack overflow inside a processor).
import t from 'tap';
import { buildWebhookServer } from '../../webhooks/app.js';
import { nested } from './mutations.js';
import { ec2NodeClass, nodePool, review } from '../webhooks/review-fixture.js';

interface Reply { response: { allowed: boolean; patch?: string; status?: { code?: number; message?: string } } }

const app = buildWebhookServer();
t.teardown(() => app.close());

async function answer(url: string, body: Record<string, unknown>): Promise<Reply['response']> {
  const response = await app.inject({ method: 'POST', url, payload: body });
  t.equal(response.statusCode, 200, `${url} answers with a review`);
  return response.json<Reply>().response;
}

const pod = (spec: unknown): { apiVersion: string; kind: string; metadata: { name: string; namespace: string }; spec: unknown } => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'apps' }, spec });
const deep = nested(3000, true) as Record<string, unknown>;

const cases: { name: string; url: string; body: Record<string, unknown>; expect: RegExp | 'allowed' }[] = [
  { name: 'a NodePool nested 3,000 levels deep', url: '/mutate/nodepools', body: review({ apiVersion: 'karpenter.sh/v1', kind: 'NodePool', metadata: { name: 'x' }, spec: deep }), expect: /nests more than 512 levels/ },
  { name: 'a pod nested 3,000 levels deep', url: '/mutate/pods', body: review(pod(deep), { namespace: 'apps' }), expect: /nests more than 512 levels/ },
  { name: 'a requirement key that is a number', url: '/validate/nodepools', body: review(nodePool({ template: { spec: { requirements: [{ key: 7, operator: 'In', values: ['a'] }], nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' } } } })), expect: /requirements\[0\]\.key: must be string/ },
  { name: 'a NodeClaim requirement without a key', url: '/validate/nodeclaims', body: review({ apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim', metadata: { name: 'c' }, spec: { requirements: [{ operator: 'In', values: ['a'] }], nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' } } }), expect: /requirements\[0\]\.key: Required value/ },
  { name: 'an AMI alias that is a number', url: '/validate/ec2nodeclasses', body: review(ec2NodeClass({ amiSelectorTerms: [{ alias: 2023 }] })), expect: /amiSelectorTerms\[0\]\.alias: must be string/ },
  { name: 'an EC2NodeClass whose spec is null', url: '/validate/ec2nodeclasses', body: review({ ...ec2NodeClass(), spec: null }), expect: /spec: must be object/ },
  { name: 'a NodeClaim whose spec is null', url: '/validate/nodeclaims', body: review({ apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim', metadata: { name: 'c' }, spec: null }), expect: /spec: must be object/ },
  { name: 'a NodeClaim whose nodeClassRef is null', url: '/validate/nodeclaims', body: review({ apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim', metadata: { name: 'c' }, spec: { requirements: [], nodeClassRef: null } }), expect: /spec\.nodeClassRef: must be object/ },
  { name: 'a NodePool whose template spec is null', url: '/validate/nodepools', body: review(nodePool({ template: { spec: null } })), expect: /spec\.template\.spec: must be object/ },
  { name: 'a pod spec that is a string', url: '/mutate/pods', body: review(pod('not a spec'), { namespace: 'apps' }), expect: 'allowed' },
  { name: 'a binding target name that is a number', url: '/validate/pods-binding', body: review({ apiVersion: 'v1', kind: 'Binding', metadata: { name: 'web', namespace: 'apps' }, target: { kind: 'Node', name: 42 } }, { namespace: 'apps' }), expect: 'allowed' },
];

for (const c of cases) {
  void t.test(`${c.url}: ${c.name} gets a clear answer, not an internal error`, async (t) => {
    const response = await answer(c.url, c.body);
    t.notMatch(response.status?.message ?? '', /internal error/);
    if (c.expect === 'allowed') t.equal(response.allowed, true);
    else {
      t.equal(response.allowed, false);
      t.match(response.status?.message, c.expect);
    }
  });
}
