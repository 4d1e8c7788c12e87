import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PutParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { al2023Parameter } from './eks-images.js';
import type { Moto, SeededVpc } from './moto.js';

/** Where Karpenter (and EKS) publish the EKS-optimized AMI ids; moto refuses PutParameter under `/aws/`. */
export const eksAmiParameterRoot = '/aws/service/eks/optimized-ami';

export interface SsmAliasProxy {
  /** Give this to a client as its SSM endpoint (`AWS_ENDPOINT_URL_SSM`). */
  readonly endpoint: string;
  stop(): Promise<void>;
}

/**
 * Copies the seeded AL2023 parameters (every variant) to the path layout of another Kubernetes version: a controller that reads the
 * cluster's version from the API server (Karpenter does) asks for that version's parameters.
 */
export async function seedEksAmiParameters(moto: Moto, vpc: SeededVpc, kubernetesVersion: string): Promise<void> {
  const ssm = new SSMClient({ endpoint: moto.endpoint, region: moto.region, credentials: moto.credentials, maxAttempts: 1 });
  try {
    for (const image of vpc.images) {
      await ssm.send(new PutParameterCommand({ Name: al2023Parameter(vpc.eksAmiParameterPrefix, kubernetesVersion, image), Value: image.id, Type: 'String', Overwrite: true }));
    }
  } finally {
    ssm.destroy();
  }
}

async function body(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * An SSM endpoint in front of moto that serves `/aws/service/eks/optimized-ami/…` from the seeded copy under
 * `seededPrefix`, for a client whose parameter paths cannot be configured (Karpenter hard-codes them). Only the
 * parameter name is rewritten, on the way in and back; everything else reaches moto unchanged.
 */
export async function startSsmAliasProxy(target: string, seededPrefix: string): Promise<SsmAliasProxy> {
  const inbound = (text: string): string => text.split(eksAmiParameterRoot).join(seededPrefix);
  const outbound = (text: string): string => text.split(seededPrefix).join(eksAmiParameterRoot);
  const server = createServer((req, res) => {
    void (async () => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) {
        if (typeof v === 'string' && !['host', 'content-length', 'connection', 'transfer-encoding'].includes(k)) headers[k] = v;
      }
      const upstream = await fetch(`${target}${req.url ?? '/'}`, { method: req.method ?? 'POST', headers, ...(req.method === 'GET' ? {} : { body: inbound(await body(req)) }) });
      const text = outbound(await upstream.text());
      res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/x-amz-json-1.1', 'content-length': Buffer.byteLength(text) });
      res.end(text);
    })().catch((e: unknown) => {
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`ssm alias proxy: ${e instanceof Error ? e.message : String(e)}`);
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${String(port)}`,
    stop: () => new Promise<void>((done) => { server.closeAllConnections(); server.close(() => { done(); }); }),
  };
}
