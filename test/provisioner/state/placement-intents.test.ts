import t from 'tap';
import type { Pod } from '../../../domain/core/pod.js';
import { PlacementIntents, workloadOf } from '../../../provisioner/state/placement-intents.js';

function owned(name: string, owner?: string): Pod {
  const pod: Pod = {
    metadata: { name, namespace: 'shop', ...(owner === undefined ? {} : { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: owner, uid: `uid-${owner}`, controller: true }] }) },
    spec: { containers: [] },
  };
  return pod;
}

void t.test('a recreated pod of the same ReplicaSet and requests is the same workload; other requests or owners are not', (t) => {
  const small = { cpu: 500, memory: 2 ** 30 };
  t.equal(workloadOf(owned('cart-abc', 'cart-7d'), small), workloadOf(owned('cart-xyz', 'cart-7d'), small));
  t.not(workloadOf(owned('cart-abc', 'cart-7d'), small), workloadOf(owned('cart-xyz', 'cart-7d'), { ...small, cpu: 1000 }));
  t.not(workloadOf(owned('cart-abc', 'cart-7d'), small), workloadOf(owned('cart-abc', 'cart-8e'), small));
  t.equal(workloadOf(owned('bare'), small), `shop/pod/bare|500|${String(2 ** 30)}`, 'a pod without a controller stands for itself');
  t.end();
});

void t.test('each planned place is taken by one bind, then the node is no longer a destination', (t) => {
  const intents = new PlacementIntents();
  intents.add('cmd-1', [{ workload: 'w', node: 'a' }, { workload: 'w', node: 'a' }, { workload: 'w', node: 'b' }], 1000);
  t.same([...intents.destinations('w')].sort(), ['a', 'b']);
  t.equal(intents.size, 3);
  intents.placed('w', 'b');
  t.same([...intents.destinations('w')], ['a']);
  intents.placed('w', 'a');
  t.same([...intents.destinations('w')], ['a'], 'a second place is left on a');
  intents.placed('w', 'elsewhere');
  intents.placed('other', 'a');
  t.equal(intents.size, 1, 'binds elsewhere or of other workloads take nothing');
  intents.placed('w', 'a');
  t.equal(intents.size, 0);
  t.same([...intents.destinations('w')], []);
  t.end();
});

void t.test('places lapse at their deadline and with their node', (t) => {
  const intents = new PlacementIntents();
  intents.add('cmd-1', [{ workload: 'w', node: 'a' }], 1000);
  intents.add('cmd-2', [{ workload: 'w', node: 'b' }, { workload: 'v', node: 'gone' }], 5000);
  intents.sweep(999, (n) => n !== 'gone');
  t.same([...intents.destinations('w')].sort(), ['a', 'b']);
  t.same([...intents.destinations('v')], [], 'the node is gone');
  intents.sweep(1000, () => true);
  t.same([...intents.destinations('w')], ['b'], 'cmd-1 lapsed');
  t.end();
});
