// The extender's filter, prioritize and bind, fuzzed with mutants of the requests the real kube-scheduler sent
// (test/fixtures/kube-scheduler), and of filter and prioritize in the full-Nodes form: a 200 (misfits and failures
// in its `Error`) or a 4xx with a message, never a 5xx; the extender keeps serving and its view of the cluster is
// unchanged. NODESMITH_FUZZ_RUNS for the long run.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import t from 'tap';
import { harness, node, type Harness } from '../extender/builders.js';
import { checkProperty, fuzzParameters, mutatedBody, type Json } from './mutations.js';

function fixture(verb: 'filter' | 'prioritize' | 'bind'): Json {
  return JSON.parse(readFileSync(new URL(`../fixtures/kube-scheduler/${verb}.json`, import.meta.url), 'utf8')) as Json;
}

/**
 * The recorded request in the form a kube-scheduler without `nodeCacheCapable` sends: every candidate Node whole
 * (a NodeList), NodeNames null. The filter reply echoes the Nodes that pass, so a mutant inside one is written back.
 */
function fullNodesForm(verb: 'filter' | 'prioritize'): Json {
  const { Pod } = fixture(verb) as { Pod: Json };
  const items = ['kwok-a', 'kwok-b'].map((name) => node(name, { cpu: '8', memory: '32Gi' }));
  return JSON.parse(JSON.stringify({ Pod, Nodes: { metadata: {}, items }, NodeNames: null })) as Json;
}

const requests: { verb: 'filter' | 'prioritize' | 'bind'; form: string; body: Json }[] = [
  ...(['filter', 'prioritize', 'bind'] as const).map((verb) => ({ verb, form: 'as recorded', body: fixture(verb) })),
  ...(['filter', 'prioritize'] as const).map((verb) => ({ verb, form: 'full Nodes', body: fullNodesForm(verb) })),
];

/** What the view says about the cluster: counts and every node's usage, as filter and prioritize read it. */
function viewSnapshot(h: Harness): string {
  return JSON.stringify({ nodes: h.view.nodeCount, pods: h.view.podCount, usage: ['kwok-a', 'kwok-b'].map((n) => h.view.usage(n)) });
}

interface Reply { Error?: unknown; error?: unknown; message?: unknown }

/** Why a reply breaks the contract, or undefined. */
function breach(status: number, reply: unknown): string | undefined {
  if (status === 200) return undefined;
  if (status < 400 || status >= 500) return `status ${String(status)}`;
  const r = reply as Reply | null;
  const message = r?.Error ?? r?.message ?? r?.error;
  return typeof message === 'string' && message !== '' ? undefined : `a ${String(status)} without a message`;
}

function parsed(body: string): unknown {
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return undefined;
  }
}

for (const { verb, form, body: request } of requests) {
  void t.test(`/${verb} (${form}) answers every mutant of kube-scheduler's request with a 200 or a 4xx, and its view stays as it was`, async (t) => {
    const h = harness();
    for (const name of ['kwok-a', 'kwok-b']) h.view.apply({ kind: 'node-upserted', node: node(name, { cpu: '8', memory: '32Gi' }) });
    // Every bind fails, so a bind that got through cannot leave a reservation behind: the view must be untouched.
    h.binder.failWith = new Error('fuzz: the API server refused the binding');
    const before = viewSnapshot(h);
    const statuses = new Set<number>();
    const failure = await checkProperty(fc.asyncProperty(mutatedBody(request), async (body) => {
      const response = await h.app.inject({ method: 'POST', url: `/${verb}`, payload: body, headers: { 'content-type': 'application/json' } });
      statuses.add(response.statusCode);
      const why = breach(response.statusCode, parsed(response.body));
      if (why !== undefined) throw new Error(`${why}: ${response.body.slice(0, 300)}`);
      if (viewSnapshot(h) !== before) throw new Error(`the view changed: ${viewSnapshot(h)}`);
    }), fuzzParameters(1500));
    t.equal(failure, undefined, 'every mutant kept the contract');
    t.ok(statuses.has(200) && statuses.has(400), `both answers were exercised: ${[...statuses].join(', ')}`);
    const healthy = await h.app.inject({ method: 'POST', url: `/${verb}`, payload: request as object });
    t.equal(healthy.statusCode, 200, 'the recorded request still gets its answer afterwards');
    t.equal(h.materializer.pendingCount, 0, 'nothing was sent to launch');
  });
}
