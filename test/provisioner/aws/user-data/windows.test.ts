import t from 'tap';
import { userDataFor } from '../../../../provisioner/aws/user-data/user-data.js';
import { cluster, decode, input, kubelet } from './fixtures.js';

const windows = { amiFamily: 'Windows2022' as const };

function lines(nodeClass: Parameters<typeof input>[0]): string[] {
  return decode(userDataFor(input({ ...windows, ...nodeClass }))).split('\n');
}

void t.test('windows runs Start-EKSBootstrap.ps1 in one powershell block with the cluster and kubelet flags', (t) => {
  const [open, script, call, close, ...rest] = lines({});
  t.equal(open, '<powershell>');
  t.equal(script, '[string]$EKSBootstrapScriptFile = "$env:ProgramFiles\\Amazon\\EKS\\Start-EKSBootstrap.ps1"');
  t.equal(
    call,
    `& $EKSBootstrapScriptFile -EKSClusterName '${cluster.name}' -APIServerEndpoint '${cluster.endpoint}' -Base64ClusterCA '${cluster.certificateAuthority}'` +
      ` -KubeletExtraArgs '--node-labels="karpenter.sh/capacity-type=spot,karpenter.sh/do-not-sync-taints=true,karpenter.sh/nodepool=general,team.example.com/owner=platform"` +
      ` --register-with-taints="dedicated=gpu:NoSchedule,example.com/starting:NoSchedule,karpenter.sh/unregistered:NoExecute" --max-pods=29'`,
  );
  t.equal(close, '</powershell>');
  t.same(rest, []);
  t.end();
});

void t.test('windows passes the managed kubelet subset as flags and the cluster DNS as -DNSClusterIP', (t) => {
  const call = lines({ kubelet }).find((l) => l.startsWith('& ')) ?? '';
  for (const flag of [
    '--max-pods=20',
    '--pods-per-core=4',
    '--system-reserved="cpu=100m,memory=100Mi"',
    '--kube-reserved="cpu=200m,memory=200Mi"',
    '--eviction-hard="memory.available<5%"',
    '--eviction-soft="memory.available<10%"',
    '--eviction-soft-grace-period="memory.available=1m30s"',
    '--eviction-max-pod-grace-period=60',
    '--image-gc-high-threshold=85',
    '--image-gc-low-threshold=80',
    '--cpu-cfs-quota=false',
  ])
    t.ok(call.includes(` ${flag}`), flag);
  t.ok(call.endsWith(" -DNSClusterIP '10.100.0.10'"));
  t.end();
});

void t.test("windows runs the user's PowerShell first, inside the same block", (t) => {
  const out = lines({ userData: 'Write-Host "first"\nWrite-Host "second"' });
  t.same(out.slice(0, 3), ['<powershell>', 'Write-Host "first"', 'Write-Host "second"']);
  t.match(out[3], /^\[string\]\$EKSBootstrapScriptFile/);
  t.end();
});
