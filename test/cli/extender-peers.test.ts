import t from 'tap';
import type { NodesmithConfig } from '../../cli/app-config.js';
import { bindForwarding, leaseAnnotationsOf, peerUrlOf } from '../../cli/extender-peers.js';
import { parseRunFlags } from '../../cli/run-flags.js';

function configOf(...flags: string[]): NodesmithConfig {
  const config = parseRunFlags(['--cluster-name=c', ...flags], {});
  if (Array.isArray(config)) throw new Error(config.join('; '));
  return config;
}

void t.test("the peer URL is the extender's scheme and port on --extender-peer-host, an IPv6 address in brackets", (t) => {
  t.equal(peerUrlOf(configOf('--extender-peer-host=10.1.2.3')), 'http://10.1.2.3:8444');
  t.equal(peerUrlOf(configOf('--extender-peer-host=fd00::5', '--extender-port=9000')), 'http://[fd00::5]:9000');
  t.equal(peerUrlOf(configOf('--extender-peer-host=10.1.2.3', '--extender-cert-file=/c', '--extender-key-file=/k')), 'https://10.1.2.3:8444');
  t.equal(peerUrlOf(configOf()), undefined, 'no peer host: no URL, each replica binds for itself');
  t.equal(peerUrlOf(configOf('--extender-peer-host=10.1.2.3', '--components=provisioner')), undefined, 'no extender: nothing to reach');
  t.end();
});

void t.test("the Lease carries the leader's URL, or an empty value that takes a previous holder's off", (t) => {
  t.same(leaseAnnotationsOf(configOf('--extender-peer-host=10.1.2.3')), { 'nodesmith.io/extender-url': 'http://10.1.2.3:8444' });
  t.same(leaseAnnotationsOf(configOf()), { 'nodesmith.io/extender-url': '' });
  t.end();
});

void t.test("binds go to the leader's URL, never to this replica's own nor to an empty one", (t) => {
  const config = configOf('--extender-peer-host=10.1.2.3');
  const holder = (url: string | undefined) => () => ({ identity: 'other', annotations: url === undefined ? {} : { 'nodesmith.io/extender-url': url } });
  t.equal(bindForwarding(config, holder('http://10.9.9.9:8444')).leaderUrl(), 'http://10.9.9.9:8444');
  t.equal(bindForwarding(config, holder('http://10.1.2.3:8444')).leaderUrl(), undefined, 'its own URL under another name: bind here');
  t.equal(bindForwarding(config, holder('')).leaderUrl(), undefined);
  t.equal(bindForwarding(config, holder(undefined)).leaderUrl(), undefined);
  t.equal(bindForwarding(config, () => undefined).leaderUrl(), undefined, 'no other leader: bind here');
  t.equal(bindForwarding(config, () => undefined).servedCert, undefined, 'over HTTP nothing to pin');
  t.end();
});
