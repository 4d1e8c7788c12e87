import t from 'tap';
import { refusalReasons } from './refusal-reasons.js';
import type { PodTrace } from './stage-watch.js';

void t.test("kube-scheduler's refusals are counted by reason, numbers aside, most frequent first", (t) => {
  const trace = (key: string, message?: string): PodTrace => ({ key, createdMs: 0, ...(message === undefined ? {} : { unschedulableMessage: message }) });
  const pods = new Map([
    ['a', trace('apps/a', '0/17 nodes are available: 17 not enough room beside the pods planned for it: cpu 500m wanted, 200m left.')],
    ['b', trace('apps/b', '0/18 nodes are available: 18 not enough room beside the pods planned for it: cpu 500m wanted, 100m left.')],
    ['c', trace('apps/c', '0/3 nodes are available: 3 node(s) had untolerated taint.')],
    ['d', trace('apps/d')],
  ]);
  t.same(refusalReasons({ pods }), [
    '2× N/N nodes are available: N not enough room beside the pods planned for it: cpu Nm wanted, Nm left.',
    '1× N/N nodes are available: N node(s) had untolerated taint.',
  ]);
  t.same(refusalReasons({ pods: new Map() }), []);
  t.end();
});
