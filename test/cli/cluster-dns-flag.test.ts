import t from 'tap';
import { parseRunFlags } from '../../cli/run-flags.js';

void t.test('--cluster-dns-ip sets the kube-dns address nodes are bootstrapped with; unset leaves it to the image', (t) => {
  const parsed = parseRunFlags(['--cluster-name=c', '--cluster-dns-ip=10.100.0.10'], {});
  t.equal(Array.isArray(parsed) ? undefined : parsed.cluster.dnsClusterIp, '10.100.0.10');
  const unset = parseRunFlags(['--cluster-name=c'], {});
  t.notOk(Array.isArray(unset) || 'dnsClusterIp' in unset.cluster);
  t.end();
});
