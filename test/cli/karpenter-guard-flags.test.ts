import t from 'tap';
import { parseRunFlags } from '../../cli/run-flags.js';

void t.test('the karpenter guard looks in karpenter and kube-system unless told where, and blocks unless overridden', (t) => {
  const parsed = parseRunFlags(['--cluster-name=c'], {});
  t.same(Array.isArray(parsed) ? undefined : parsed.karpenterGuard, {
    leases: [{ namespace: 'karpenter', name: 'karpenter-leader-election' }, { namespace: 'kube-system', name: 'karpenter-leader-election' }],
    deployments: [{ namespace: 'karpenter', name: 'karpenter' }, { namespace: 'kube-system', name: 'karpenter' }],
    override: false,
  });
  const custom = parseRunFlags(['--cluster-name=c', '--karpenter-leases=autoscaling/karpenter-leader-election', '--karpenter-deployments=', '--ignore-running-karpenter'], {});
  t.same(Array.isArray(custom) ? undefined : custom.karpenterGuard, {
    leases: [{ namespace: 'autoscaling', name: 'karpenter-leader-election' }], deployments: [], override: true,
  });
  t.same(parseRunFlags(['--cluster-name=c', '--karpenter-leases=karpenter-leader-election'], {}), [
    '--karpenter-leases takes namespace/name pairs separated by commas; got "karpenter-leader-election"',
  ]);
  t.end();
});
