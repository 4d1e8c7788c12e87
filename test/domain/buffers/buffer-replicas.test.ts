import t from 'tap';
import { bufferReplicas } from '../../../domain/buffers/buffer-replicas.js';

const oneCpu = { cpu: 1000, memory: 1024 ** 3 };

void t.test('replicas alone is the count of pods the buffer keeps room for', (t) => {
  t.equal(bufferReplicas({ replicas: 10 }, oneCpu), 10);
  t.equal(bufferReplicas({ replicas: 0 }, oneCpu), 0);
  t.end();
});

void t.test('a percentage of the workload rounds up, and is at least one pod when both are positive', (t) => {
  t.equal(bufferReplicas({ percentage: 20 }, oneCpu, 10), 2);
  t.equal(bufferReplicas({ percentage: 25 }, oneCpu, 10), 3, '2.5 rounds up');
  t.equal(bufferReplicas({ percentage: 1 }, oneCpu, 3), 1, 'at least one');
  t.equal(bufferReplicas({ percentage: 0 }, oneCpu, 10), 0);
  t.equal(bufferReplicas({ percentage: 50 }, oneCpu, 0), 0, 'a workload scaled to zero keeps no room');
  t.end();
});

void t.test('replicas and percentage together keep the larger, as the Cluster Autoscaler API does', (t) => {
  t.equal(bufferReplicas({ replicas: 3, percentage: 50 }, oneCpu, 10), 5);
  t.equal(bufferReplicas({ replicas: 7, percentage: 50 }, oneCpu, 10), 7);
  t.end();
});

void t.test('limits cap the count by how many pods\' requests fit, over the resources both name', (t) => {
  t.equal(bufferReplicas({ replicas: 10, limits: { cpu: '4' } }, oneCpu), 4);
  t.equal(bufferReplicas({ replicas: 2, limits: { cpu: '4' } }, oneCpu), 2, 'a cap above the count changes nothing');
  t.equal(bufferReplicas({ replicas: 10, limits: { cpu: '8', memory: '3Gi' } }, oneCpu), 3, 'the tightest resource decides');
  t.equal(bufferReplicas({ replicas: 10, limits: { 'nvidia.com/gpu': '1' } }, oneCpu), 10, 'a resource the pod does not request caps nothing');
  t.end();
});

void t.test('limits alone decide the count when neither replicas nor percentage is set', (t) => {
  t.equal(bufferReplicas({ limits: { cpu: '6500m' } }, oneCpu), 6);
  t.equal(bufferReplicas({}, oneCpu), 0, 'nothing set keeps no room');
  t.end();
});
