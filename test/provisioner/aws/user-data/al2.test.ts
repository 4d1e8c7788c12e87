import t from 'tap';
import { userDataFor } from '../../../../provisioner/aws/user-data/user-data.js';
import { parseMime } from '../../../../provisioner/aws/user-data/mime.js';
import { cluster, decode, input, kubelet } from './fixtures.js';

function partsOf(nodeClass: Parameters<typeof input>[0]): { type: string; content: string }[] {
  return parseMime(decode(userDataFor(input({ amiFamily: 'AL2', ...nodeClass })))).map((p) => ({
    type: p.headers['Content-Type'] ?? '',
    content: p.content,
  }));
}

void t.test('al2 calls bootstrap.sh with the cluster and the kubelet flags, max pods fixed', (t) => {
  const [only, ...rest] = partsOf({});
  t.same(rest, []);
  t.equal(only?.type, 'text/x-shellscript; charset="us-ascii"');
  t.equal(
    only?.content,
    [
      '#!/bin/bash -xe',
      'exec > >(tee /var/log/user-data.log|logger -t user-data -s 2>/dev/console) 2>&1',
      `/etc/eks/bootstrap.sh '${cluster.name}' --apiserver-endpoint '${cluster.endpoint}' --b64-cluster-ca '${cluster.certificateAuthority}' \\`,
      '--use-max-pods false \\',
      `--kubelet-extra-args '--node-labels="karpenter.sh/capacity-type=spot,karpenter.sh/do-not-sync-taints=true,karpenter.sh/nodepool=general,team.example.com/owner=platform" --register-with-taints="dedicated=gpu:NoSchedule,example.com/starting:NoSchedule,karpenter.sh/unregistered:NoExecute" --max-pods=29'`,
    ].join('\n'),
  );
  t.end();
});

void t.test('al2 adds the cluster DNS, IPv6, the kubelet subset and local-disk RAID0 when set', (t) => {
  const script = partsOf({ kubelet, instanceStorePolicy: 'RAID0' })[0]?.content ?? '';
  t.match(script, /\\\n--dns-cluster-ip '10\.100\.0\.10' \\\n/);
  t.notMatch(script, /--ip-family/);
  t.match(script, /--max-pods=20 --pods-per-core=4 --system-reserved="cpu=100m,memory=100Mi"/);
  t.match(script, /--eviction-soft-grace-period="memory\.available=1m30s"/);
  t.match(script, / \\\n--local-disks raid0$/);
  const v6 = partsOf({ kubelet: { clusterDNS: ['fd00::a'] } })[0]?.content ?? '';
  t.match(v6, /\\\n--ip-family ipv6 \\\n--dns-cluster-ip 'fd00::a'/);
  t.end();
});

void t.test("al2 runs the user's script or MIME parts first, headers kept", (t) => {
  const script = partsOf({ userData: '#!/bin/bash\necho hi\n' });
  t.same(script.map((p) => p.content.split('\n')[0]), ['#!/bin/bash', '#!/bin/bash -xe']);
  const mime = 'MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="b"\n\n--b\nContent-Type: text/cloud-config\n\npackages: [jq]\n--b--\n';
  t.same(partsOf({ userData: mime }).map((p) => p.type), ['text/cloud-config', 'text/x-shellscript; charset="us-ascii"']);
  t.end();
});
