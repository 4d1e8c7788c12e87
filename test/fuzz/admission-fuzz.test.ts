// Every admission route, fuzzed with mutants of the recorded AdmissionReview: the answer is a 200 AdmissionReview
// echoing the uid, whose JSONPatch applies cleanly to the object, or a 4xx with a message; never a 5xx, never
// an internal-error denial, never a hang. NODESMITH_FUZZ_RUNS=100000 runs the long version.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import jsonpatch, { type Operation } from 'fast-json-patch';
import t from 'tap';
import { virtualNodeName } from '../../domain/api/virtual-node-name.js';
import { admissionProcessors, buildWebhookServer } from '../../webhooks/app.js';
import { ec2NodeClass, nodePool } from '../webhooks/review-fixture.js';
import { checkProperty, fuzzParameters, mutatedBody, type Json } from './mutations.js';

const recorded = JSON.parse(readFileSync(new URL('../fixtures/admission/configmap-create.json', import.meta.url), 'utf8')) as { request: Record<string, Json> };
// ^ the one AdmissionReview recorded from the real API server; each route gets it re-aimed at its own kind.

const objects: Readonly<Record<string, Json>> = {
  'karpenter.sh/v1/NodePool': nodePool({ disruption: { consolidateAfter: '30s', budgets: [{ nodes: '10%' }] } }) as unknown as Json,
  'karpenter.k8s.aws/v1/EC2NodeClass': ec2NodeClass() as unknown as Json,
  'karpenter.sh/v1/NodeClaim': {
    apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim', metadata: { name: 'default-x7k2p' },
    spec: { requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }], nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' } },
  },
  'v1/Pod': {
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'apps', annotations: { 'nodesmith.io/capacity-type-preference': 'spot' } },
    spec: { containers: [{ name: 'c', image: 'nginx', resources: { requests: { cpu: '250m', memory: '512Mi' } } }] },
  },
  'v1/Binding': { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'web', namespace: 'apps' }, target: { kind: 'Node', name: virtualNodeName('default-x7k2p') } },
};

/** The recorded API-server review, re-aimed at `kindKey` with `object` (so the envelope is the real wire shape). */
function recordedReview(kindKey: string, object: Json): Json {
  const parts = kindKey.split('/');
  const kind = parts.pop() ?? '';
  const version = parts.pop() ?? '';
  const group = parts.join('/');
  const resource = kind === 'Binding' ? 'pods' : `${kind.toLowerCase()}s`;
  return {
    ...recorded,
    request: {
      ...recorded.request,
      kind: { group, version, kind }, requestKind: { group, version, kind },
      resource: { group, version, resource }, requestResource: { group, version, resource },
      ...(kind === 'Binding' ? { subResource: 'binding', requestSubResource: 'binding' } : {}),
      namespace: 'apps', object, oldObject: null,
    },
  };
}

interface Reply { response?: { uid?: string; allowed?: boolean; patch?: string; patchType?: string; status?: { code?: number; message?: string } }; message?: string }

function sentRequest(body: string | Buffer): { uid?: unknown; object?: unknown } | undefined {
  try {
    return (JSON.parse(body.toString()) as { request?: { uid?: unknown; object?: unknown } }).request;
  } catch {
    return undefined;
  }
}

/** Why a 200 review's JSONPatch does not apply to the object sent, or undefined when it applies (or there is none). */
function patchProblem(patch: string | undefined, object: unknown): string | undefined {
  if (patch === undefined) return undefined;
  const ops = JSON.parse(Buffer.from(patch, 'base64').toString('utf8')) as Operation[];
  try {
    jsonpatch.applyPatch(structuredClone(object), ops, true);
    return undefined;
  } catch (e) {
    return `patch does not apply: ${e instanceof Error ? e.message : String(e)}`;
  }
}

/** A 4xx must say why; anything else but 200 breaks the contract. */
function clientError(status: number, reply: Reply): string | undefined {
  if (status < 400 || status >= 500) return `status ${String(status)}`;
  return (reply.message ?? '') === '' ? `a ${String(status)} without a message` : undefined;
}

/** Why a reply breaks the contract, or undefined when it keeps it. */
function breach(status: number, reply: Reply, body: string | Buffer): string | undefined {
  if (status !== 200) return clientError(status, reply);
  const sent = sentRequest(body);
  const response = reply.response ?? {};
  if (response.uid !== sent?.uid) return `uid ${JSON.stringify(response.uid)} does not echo ${JSON.stringify(sent?.uid)}`;
  if (response.status?.code === 500) return `internal error: ${response.status.message ?? ''}`;
  return patchProblem(response.patch, sent?.object);
}

const app = buildWebhookServer();
t.teardown(() => app.close());

for (const processor of admissionProcessors) {
  const [kindKey = ''] = processor.kinds;
  const base = recordedReview(kindKey, objects[kindKey] ?? null);
  void t.test(`${processor.path} answers every mutant of a real review with a 200 review or a 4xx`, async (t) => {
    const statuses = new Set<number>();
    const failure = await checkProperty(fc.asyncProperty(mutatedBody(base), async (body) => {
      const response = await app.inject({ method: 'POST', url: processor.path, payload: body, headers: { 'content-type': 'application/json' } });
      statuses.add(response.statusCode);
      const why = breach(response.statusCode, response.json<Reply>(), body);
      if (why !== undefined) throw new Error(why);
    }), fuzzParameters(1500));
    t.equal(failure, undefined, 'every mutant kept the contract');
    t.ok(statuses.has(200) && statuses.has(400), `both answers were exercised: ${[...statuses].join(', ')}`);
  });
}
