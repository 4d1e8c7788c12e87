import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type * as k8s from '@kubernetes/client-node';
import t from 'tap';
import { freePort } from './free-port.js';
import { keyShape, recordOrLoadFixture } from './record-fixture.js';
import { waitFor } from './wait-for.js';
import { withStack } from './with-stack.js';

type Verb = 'filter' | 'prioritize' | 'bind';
interface Recorded { filter: unknown[]; prioritize: unknown[]; bind: unknown[] }
interface ExtenderArgs { NodeNames?: string[] }
interface BindArgs { PodName: string; PodNamespace: string; PodUID: string; Node: string }

/** A recording test extender: admits every node, scores them equally, and binds through the API. */
function startRecordingExtender(port: number, core: k8s.CoreV1Api, recorded: Recorded): Promise<Server> {
  const reply = async (verb: Verb, body: unknown): Promise<unknown> => {
    recorded[verb].push(body);
    if (verb === 'filter') return { NodeNames: (body as ExtenderArgs).NodeNames ?? [], FailedNodes: {}, FailedAndUnresolvableNodes: {}, Error: '' };
    if (verb === 'prioritize') return ((body as ExtenderArgs).NodeNames ?? []).map((Host) => ({ Host, Score: 5 }));
    const b = body as BindArgs;
    await core.createNamespacedBinding({ namespace: b.PodNamespace, body: { metadata: { name: b.PodName, namespace: b.PodNamespace, uid: b.PodUID }, target: { apiVersion: 'v1', kind: 'Node', name: b.Node } } });
    return { Error: '' };
  };
  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    let text = '';
    req.on('data', (c: Buffer) => { text += c.toString(); });
    req.on('end', () => {
      const verb = (req.url ?? '').replace(/^\//, '') as Verb;
      reply(verb, JSON.parse(text)).then(
        (out) => { res.setHeader('content-type', 'application/json'); res.end(JSON.stringify(out)); },
        (error: unknown) => { res.end(JSON.stringify({ Error: String(error) })); },
      );
    });
  };
  const server = createServer(handle);
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => { resolve(server); }));
}

const kwokNode = (name: string): k8s.V1Node => ({
  metadata: { name, labels: { 'kubernetes.io/hostname': name, 'topology.kubernetes.io/zone': 'us-east-1a' } },
  status: { capacity: { cpu: '8', memory: '32Gi', pods: '110' }, allocatable: { cpu: '8', memory: '32Gi', pods: '110' } },
});

void t.test('kube-scheduler calls an HTTP extender to filter, prioritize and bind a pod', async (t) => {
  const port = await freePort();
  const { core } = await withStack(t, {
    scheduler: { extenders: [{ urlPrefix: `http://127.0.0.1:${port}`, filterVerb: 'filter', prioritizeVerb: 'prioritize', bindVerb: 'bind', weight: 1, nodeCacheCapable: true, httpTimeout: '30s' }] },
  });
  const recorded: Recorded = { filter: [], prioritize: [], bind: [] };
  const server = await startRecordingExtender(port, core, recorded);
  t.teardown(() => { server.close(); });

  // Two nodes, so that kube-scheduler scores (it skips scoring when one node is feasible).
  for (const name of ['kwok-a', 'kwok-b']) await core.createNode({ body: kwokNode(name) });
  // Ready is not enough: kube-controller-manager removes its not-ready taint a moment later, and until
  // then kube-scheduler would see one feasible node and skip scoring.
  await waitFor('both nodes Ready and untainted', async () => {
    const nodes = await core.listNode();
    const usable = nodes.items.filter((n) => (n.spec?.taints ?? []).length === 0 && n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'));
    return usable.length === 2 ? true : undefined;
  });
  await core.createNamespacedPod({ namespace: 'default', body: { metadata: { name: 'extended' }, spec: { containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: '500m', memory: '256Mi' } } }] } } });
  const pod = await waitFor('the pod to be bound', async () => {
    const p = await core.readNamespacedPod({ name: 'extended', namespace: 'default' });
    return p.spec?.nodeName ? p : undefined;
  }, { timeoutMs: 60_000 });

  t.ok(['kwok-a', 'kwok-b'].includes(pod.spec?.nodeName ?? ''), 'the pod is bound to one of the nodes');
  const [filter, prioritize, bind] = [recorded.filter[0], recorded.prioritize[0], recorded.bind[0]];
  t.match(filter, { Pod: { metadata: { name: 'extended' } } }, 'filter receives the Pod');
  t.same([...((filter as { NodeNames?: string[] }).NodeNames ?? [])].sort(), ['kwok-a', 'kwok-b'], 'and, being node-cache capable, the names of both feasible nodes');
  t.notOk((filter as { Nodes?: unknown }).Nodes, 'no full Node objects are sent to a node-cache-capable extender');
  t.match(prioritize, { Pod: { metadata: { name: 'extended' } }, NodeNames: Array }, 'prioritize receives the same capitalised keys');
  t.match(bind, { PodName: 'extended', PodNamespace: 'default', PodUID: pod.metadata?.uid, Node: pod.spec?.nodeName }, 'bind names the pod and the chosen node');

  const record = process.env['NODESMITH_RECORD_FIXTURES'] === '1';
  for (const [verb, live] of [['filter', filter], ['prioritize', prioritize], ['bind', bind]] as const) {
    const saved = recordOrLoadFixture(`kube-scheduler/${verb}.json`, live, record);
    const liveTop = keyShape(live).map((k) => k.split('.')[0]);
    t.same([...new Set(liveTop)].sort(), [...new Set(keyShape(saved).map((k) => k.split('.')[0]))].sort(), `the live ${verb} request has the fixture's top-level keys`);
  }
});
