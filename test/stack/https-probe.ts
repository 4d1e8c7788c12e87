import { request } from 'node:https';

/** GETs a path over TLS and resolves to the status code; `tls` carries client certificates when needed. */
export async function httpsStatus(
  url: string,
  tls: { ca?: Buffer; cert?: Buffer; key?: Buffer; insecure?: boolean } = {},
): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'GET',
      timeout: 2_000,
      ...(tls.ca ? { ca: tls.ca } : {}),
      ...(tls.cert ? { cert: tls.cert } : {}),
      ...(tls.key ? { key: tls.key } : {}),
      rejectUnauthorized: tls.insecure !== true,
    }, (res) => {
      res.resume();
      res.once('end', () => { resolve(res.statusCode ?? 0); });
    });
    req.once('timeout', () => { req.destroy(new Error(`GET ${url} timed out`)); });
    req.once('error', reject);
    req.end();
  });
}
