// The floor for the scheduler-throughput benchmark: the least work any extender wired with filter, prioritize
// and bind must do. It answers on a bare node:http server (no framework, no validation, no cluster view): every
// candidate passes, every score is 0, and bind creates the Binding with the same pooled client nodesmith uses.
// Whatever throughput kube-scheduler loses against this process is the price of the extender protocol itself
// on the machine, not of nodesmith's implementation. Run by scheduler-throughput-bench.ts as its own process.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { parseArgs } from 'node:util';
import { KubePodBinder } from '../../provisioner/kube/binder.js';

const { values } = parseArgs({ options: { kubeconfig: { type: 'string' }, host: { type: 'string', default: '127.0.0.1' }, port: { type: 'string', default: '0' } } });
const binder = KubePodBinder.fromKubeconfig(values.kubeconfig);

interface Call { NodeNames?: string[]; PodName?: string; PodNamespace?: string; PodUID?: string; Node?: string }

function answer(res: ServerResponse, body: unknown): void {
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify(body));
}

function handle(path: string | undefined, call: Call, res: ServerResponse): void {
  const names = call.NodeNames ?? [];
  if (path === '/filter') answer(res, { NodeNames: names, FailedNodes: {}, FailedAndUnresolvableNodes: {}, Error: '' });
  else if (path === '/prioritize') answer(res, names.map((Host) => ({ Host, Score: 0 })));
  else if (path === '/bind') {
    binder.bind({ namespace: call.PodNamespace ?? '', name: call.PodName ?? '', uid: call.PodUID ?? '', nodeName: call.Node ?? '' })
      .then(() => { answer(res, { Error: '' }); }, (error: unknown) => { answer(res, { Error: error instanceof Error ? error.message : String(error) }); });
  } else {
    res.statusCode = 404;
    res.end();
  }
}

const server = createServer((req: IncomingMessage, res: ServerResponse) => {
  if (req.url === '/readyz') {
    res.end('ok');
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    handle(req.url, JSON.parse(Buffer.concat(chunks).toString('utf8')) as Call, res);
  });
});
// As long as kube-scheduler keeps idle connections, like the real extender's fastify settings.
server.keepAliveTimeout = 75_000;
server.listen(Number(values.port), values.host);
process.once('SIGTERM', () => {
  server.close();
  void binder.close();
});
