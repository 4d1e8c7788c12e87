// The floor for the scheduler-throughput benchmark: the least work any extender wired with filter, prioritize
// and bind must do. It answers on a bare node:http server (no framework, no validation, no cluster view): every
// candidate passes, every score is 0, and bind creates the Binding with the same pooled client nodesmith uses.
// Whatever throughput kube-scheduler loses against this process is the price of the extender protocol itself
// on the machine, not of nodesmith's implementation. Run by scheduler-throughput-bench.ts as its own process.
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createSecureServer, type Http2ServerRequest, type Http2ServerResponse } from 'node:http2';
import { parseArgs } from 'node:util';
import { loadKubeConfig } from '../../provisioner/kube/kube-config.js';
import { KubePodBinder } from '../../provisioner/kube/binder.js';

const { values } = parseArgs({ options: { kubeconfig: { type: 'string' }, host: { type: 'string', default: '127.0.0.1' }, port: { type: 'string', default: '0' }, 'cert-file': { type: 'string' }, 'key-file': { type: 'string' } } });
const binder = KubePodBinder.fromKubeConfig(loadKubeConfig(values.kubeconfig, { env: process.env }));

interface Call { NodeNames?: string[]; PodName?: string; PodNamespace?: string; PodUID?: string; Node?: string }

type Response = ServerResponse | Http2ServerResponse;

function answer(res: Response, body: unknown): void {
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify(body));
}

function handle(path: string | undefined, call: Call, res: Response): void {
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

function onRequest(req: IncomingMessage | Http2ServerRequest, res: Response): void {
  if (req.url === '/readyz') {
    res.end('ok');
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    handle(req.url, JSON.parse(Buffer.concat(chunks).toString('utf8')) as Call, res);
  });
}

// With a certificate: HTTP/2 and HTTP/1.1 over TLS, as nodesmith's extender serves when given one.
const certFile = values['cert-file'];
const keyFile = values['key-file'];
const server = certFile !== undefined && keyFile !== undefined
  ? createSecureServer({ allowHTTP1: true, cert: readFileSync(certFile), key: readFileSync(keyFile) }, onRequest)
  : createServer(onRequest);
// As long as kube-scheduler keeps idle connections, like the real extender's fastify settings.
if ('keepAliveTimeout' in server) server.keepAliveTimeout = 75_000;
server.listen(Number(values.port), values.host);
process.once('SIGTERM', () => {
  server.close();
  void binder.close();
});
