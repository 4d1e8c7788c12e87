import t from 'tap';
import { Soak } from '../soak/soak.js';
import { formatReport } from '../soak/soak-report.js';
import { soakStackOptions } from '../soak/soak-setup.js';
import { withProduct } from './e2e-support.js';

// The short, seeded soak (`npm run soak -- --minutes 3 --seed 537`): three minutes of churn and faults, then settling.
// Seed 537 draws a node pool that never becomes Ready, a leader kill with its Lease handover and an API server
// restart among its first three faults, and dropped watches by the sixth.
// tap's 10-minute file timeout holds it: the stack and workload take about two minutes, settling at most four.
void t.test('three minutes of seeded churn and faults break no invariant and leave nothing leaked or lost', async (t) => {
  const product = await withProduct(t, soakStackOptions());
  const lines: string[] = [];
  const report = await new Soak(product, { minutes: 3, seed: 537, settleMs: 180_000, write: (text) => lines.push(text) }).run();
  t.comment(`${lines.join('')}${formatReport(report)}`);
  t.same(report.violations.map((v) => `${v.invariant}: ${v.message}`), [], 'no invariant was broken while it ran');
  t.same(report.leakedInstances, [], 'no instance is left without a NodeClaim');
  t.same(report.lostNodeClaims, [], 'no launched NodeClaim is left without its instance');
  t.same(report.missingPods, [], 'every Deployment has all its pods');
  t.ok(report.faults.total > 0 && report.churn.total > 0, 'faults and churn did happen');
});
