import * as k8s from '@kubernetes/client-node';
import t from 'tap';
import { withStack } from './with-stack.js';

void t.test('@kubernetes/client-node creates, lists and watches objects in the real API server', async (t) => {
  const { kc, core } = await withStack(t, { controllerManager: false, kwok: false, scheduler: false });
  await core.createNamespace({ body: { metadata: { name: 'client-test' } } });

  const seen: string[] = [];
  const watch = new k8s.Watch(kc);
  const sawCreation = new Promise<void>((resolve, reject) => {
    void watch
      .watch('/api/v1/namespaces/client-test/configmaps', {}, (phase, obj: k8s.V1ConfigMap) => {
        seen.push(`${phase} ${obj.metadata?.name ?? ''}`);
        if (phase === 'ADDED' && obj.metadata?.name === 'watched') resolve();
      }, (err) => { if (err) reject(err as Error); })
      .then((req) => { t.teardown(() => { req.abort(); }); });
  });

  await core.createNamespacedConfigMap({ namespace: 'client-test', body: { metadata: { name: 'first' }, data: { a: '1' } } });
  await core.createNamespacedConfigMap({ namespace: 'client-test', body: { metadata: { name: 'watched' }, data: { b: '2' } } });
  await sawCreation;

  const list = await core.listNamespacedConfigMap({ namespace: 'client-test' });
  const names = list.items.map((c) => c.metadata?.name).filter((n) => n !== 'kube-root-ca.crt').sort();
  t.same(names, ['first', 'watched'], 'both created configmaps are listed');
  t.ok(seen.includes('ADDED watched'), 'the watch delivered the ADDED event');
  const read = await core.readNamespacedConfigMap({ name: 'first', namespace: 'client-test' });
  t.equal(read.data?.['a'], '1', 'the stored object round-trips');
});
