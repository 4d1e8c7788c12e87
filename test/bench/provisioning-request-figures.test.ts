import t from 'tap';
import { sideBySide, wayFigures } from './provisioning-request-figures.js';

const started = 1_000_000;
const at = (s: number): number => started + s * 1000;

void t.test('a way\'s times are seconds from the ask: the last pod for "all", nearest rank over the pods for median and p99', (t) => {
  const figures = wayFigures({
    startedMs: started, provisionedMs: at(4),
    pods: [{ boundMs: at(5), runningMs: at(6) }, { boundMs: at(7), runningMs: at(9) }, { boundMs: at(6), runningMs: at(8) }],
    nodes: 2, pricePerHour: 0.384,
  });
  t.same(figures, {
    provisionedS: 4, allBoundS: 7, allRunningS: 9, boundMedianS: 6, boundP99S: 7, runningMedianS: 8, runningP99S: 9, nodes: 2, pricePerHour: 0.384,
  });
  t.end();
});

void t.test('a plain Deployment has no Provisioned moment, and a pod never seen Running leaves "all Running" unknown', (t) => {
  const figures = wayFigures({ startedMs: started, pods: [{ boundMs: at(2), runningMs: at(3) }, { boundMs: at(4) }], nodes: 1, pricePerHour: 0.192 });
  t.ok(Number.isNaN(figures.provisionedS), 'no Provisioned');
  t.equal(figures.allBoundS, 4);
  t.ok(Number.isNaN(figures.allRunningS), 'not the last pod seen Running, but unknown');
  t.equal(figures.runningMedianS, 3, 'the pods seen Running still give their median');
  t.end();
});

void t.test('the side-by-side table takes each figure\'s median over the rounds and marks what does not apply', (t) => {
  const request = [
    wayFigures({ startedMs: started, provisionedMs: at(10), pods: [{ boundMs: at(12), runningMs: at(13) }], nodes: 10, pricePerHour: 3.4 }),
    wayFigures({ startedMs: started, provisionedMs: at(20), pods: [{ boundMs: at(22), runningMs: at(23) }], nodes: 11, pricePerHour: 3.6 }),
  ];
  const deployment = [wayFigures({ startedMs: started, pods: [{ boundMs: at(8), runningMs: at(9) }], nodes: 10, pricePerHour: 3.4 })];
  const table = sideBySide(request, deployment).split('\n');
  t.match(table[0], /median of 2 rounds/);
  t.equal(table.find((l) => l.startsWith('| to Provisioned')), '| to Provisioned | 10.0 s | – |');
  t.equal(table.find((l) => l.startsWith('| to all pods Running')), '| to all pods Running | 13.0 s | 9.0 s |');
  t.equal(table.find((l) => l.startsWith('| nodes')), '| nodes | 10 | 10 |');
  t.equal(table.find((l) => l.startsWith('| on-demand')), '| on-demand $/hour | $3.400 | $3.400 |');
  t.end();
});
