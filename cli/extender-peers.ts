import { readFileSync } from 'node:fs';
import type { BindForwardingOptions } from '../extender/bind-forward.js';
import { leaderExtenderUrlAnnotation } from '../domain/product-keys.js';
import type { LeaseHolder } from '../provisioner/kube/leader-election.js';
import type { NodesmithConfig } from './app-config.js';

/**
 * The URL at which the other replicas reach this one's extender (`--extender-peer-host`, default $POD_IP, on the
 * extender's own port and scheme), published on the Lease while this replica leads; undefined without a peer host
 * or without the extender.
 */
export function peerUrlOf(config: NodesmithConfig): string | undefined {
  const { peerHost, port, tls } = config.extender;
  if (peerHost === undefined || peerHost === '' || !config.components.extender) return undefined;
  // An IPv6 pod IP goes in brackets in a URL.
  const host = peerHost.includes(':') ? `[${peerHost}]` : peerHost;
  return `${tls === undefined ? 'http' : 'https'}://${host}:${String(port)}`;
}

/**
 * The Lease annotations this replica writes while it leads: its extender's URL, or '' without one, which takes a
 * previous holder's URL off the Lease rather than leave the others sending binds to it.
 */
export function leaseAnnotationsOf(config: NodesmithConfig): Record<string, string> {
  return { [leaderExtenderUrlAnnotation]: peerUrlOf(config) ?? '' };
}

/**
 * Binds handed to the leader (extender/bind-forward.ts) when another replica leads and published its URL. With TLS,
 * the leader must present the certificate this replica serves, read from its file each time a connection opens (a
 * renewed Secret is then compared as served).
 */
export function bindForwarding(config: NodesmithConfig, leader: () => LeaseHolder | undefined): BindForwardingOptions {
  const certFile = config.extender.tls?.certFile;
  const own = peerUrlOf(config);
  return {
    // Its own URL under another holder's name (a Lease read mid-handover) is no leader to hand binds to.
    leaderUrl: () => {
      const url = leader()?.annotations[leaderExtenderUrlAnnotation];
      return url === undefined || url === '' || url === own ? undefined : url;
    },
    ...(certFile === undefined ? {} : { servedCert: () => readFileSync(certFile) }),
  };
}
