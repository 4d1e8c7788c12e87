import t from 'tap';
import type { Container, Pod } from '../../domain/core/pod.js';
import { podLimits } from '../../domain/pod-limits.js';

const container = (name: string, limits?: Record<string, string>, restartPolicy?: string): Container => ({
  name, ...(limits === undefined ? {} : { resources: { limits } }), ...(restartPolicy === undefined ? {} : { restartPolicy }),
});
const podOf = (spec: Partial<Pod['spec']>): Pod => ({ metadata: { name: 'p' }, spec: { containers: [], ...spec } });

void t.test('limits of the app containers add up, and every pod takes one pod slot', (t) => {
  t.same(podLimits(podOf({ containers: [container('a', { cpu: '1', memory: '1Gi' }), container('b', { cpu: '500m' })] })), { cpu: 1500, memory: 1073741824, pods: 1 });
  t.end();
});

void t.test('a regular init container counts when it is larger, sidecars always count', (t) => {
  const pod = podOf({
    initContainers: [container('sidecar', { cpu: '200m' }, 'Always'), container('migrate', { cpu: '3' })],
    containers: [container('app', { cpu: '1' })],
  });
  // app + sidecar = 1.2 cores; migrate + the sidecar started before it = 3.2 cores.
  t.same(podLimits(pod), { cpu: 3200, pods: 1 });
  t.end();
});

void t.test('overhead is added only to resources that have a limit', (t) => {
  const pod = podOf({ overhead: { cpu: '100m', memory: '64Mi' }, containers: [container('app', { cpu: '1' })] });
  t.same(podLimits(pod), { cpu: 1100, pods: 1 }, 'memory stays unlimited');
  t.end();
});

void t.test('a pod without limits has only its pod slot', (t) => {
  t.same(podLimits(podOf({ containers: [container('app')] })), { pods: 1 });
  t.end();
});
