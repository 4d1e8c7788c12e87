import { request } from 'node:https';
import { createServingCertificates, type ServingCertificates } from '../../webhooks/serving-certificates.js';

/** A fresh CA and a serving certificate for localhost / 127.0.0.1, valid for a day. */
export function issueLocalCertificates(): Promise<ServingCertificates> {
  return createServingCertificates({ dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'], validDays: 1, now: new Date() });
}

/** GET /healthz over HTTP/1.1 on a fresh connection (agent: false), trusting only `ca`; the status code. */
export function healthzStatus(url: string, ca: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/healthz`, { ca, agent: false }, (res) => {
      res.resume();
      res.on('end', () => { resolve(res.statusCode ?? 0); });
    });
    req.on('error', reject);
    req.end();
  });
}
