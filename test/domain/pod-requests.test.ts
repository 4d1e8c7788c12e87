import t from 'tap';
import type { Container, Pod } from '../../domain/core/pod.js';
import { podRequests } from '../../domain/pod-requests.js';

function pod(containers: Container[], extra: Partial<Pod['spec']> = {}): Pod {
  return { metadata: { name: 'p', namespace: 'default' }, spec: { containers, ...extra } };
}
const c = (name: string, cpu: string, memory: string, restartPolicy?: string): Container => ({
  name, resources: { requests: { cpu, memory } }, ...(restartPolicy === undefined ? {} : { restartPolicy }),
});

void t.test('pod requests follow kube-scheduler semantics', (t) => {
  const cases: { name: string; pod: Pod; cpu: number; memory: number }[] = [
    { name: 'containers are summed', pod: pod([c('a', '100m', '1Mi'), c('b', '200m', '2Mi')]), cpu: 300, memory: 3 * 2 ** 20 },
    { name: 'the largest init container wins over the app containers', pod: pod([c('a', '100m', '1Mi')], { initContainers: [c('i', '2', '1Mi'), c('j', '1', '5Mi')] }), cpu: 2000, memory: 5 * 2 ** 20 },
    { name: 'sidecars are added to the app containers', pod: pod([c('a', '100m', '1Mi')], { initContainers: [c('s', '50m', '1Mi', 'Always')] }), cpu: 150, memory: 2 * 2 ** 20 },
    { name: 'an init container after a sidecar runs beside it', pod: pod([c('a', '100m', '1Mi')], { initContainers: [c('s', '500m', '1Mi', 'Always'), c('i', '1', '1Mi')] }), cpu: 1500, memory: 2 * 2 ** 20 },
    { name: 'pod overhead is added', pod: pod([c('a', '100m', '1Mi')], { overhead: { cpu: '10m', memory: '1Mi' } }), cpu: 110, memory: 2 * 2 ** 20 },
    { name: 'limits stand in for missing requests', pod: pod([{ name: 'a', resources: { limits: { cpu: '1', memory: '1Gi' } } }]), cpu: 1000, memory: 2 ** 30 },
  ];
  for (const tc of cases) {
    const requests = podRequests(tc.pod);
    t.same([requests['cpu'], requests['memory'], requests['pods']], [tc.cpu, tc.memory, 1], tc.name);
  }
  t.end();
});

void t.test('a pod with no requests still takes one pod slot', (t) => {
  t.same(podRequests(pod([{ name: 'a' }])), { pods: 1 });
  t.end();
});
