import t from 'tap';
import { planCommand } from '../../cli/plan-command.js';
import type { PlanReport } from '../../cli/plan-output.js';

// A NodePool of m6i.large and m7i.large on-demand, a savings-plan NodeOverlay of -30% on m7i, and one pod of 1 CPU, 5Gi.
const manifests = new URL('./fixtures/plan-overlay/savings-plan.yaml', import.meta.url).pathname;

async function plan(...extra: string[]): Promise<{ code: number; report: PlanReport; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await planCommand.run(['-f', manifests, '-o', 'json', ...extra], { stdout: (s) => { stdout += s; }, stderr: (s) => { stderr += s; }, interrupted: new Promise(() => undefined) });
  return { code, report: (code === 0 ? JSON.parse(stdout) : {}) as PlanReport, stderr };
}

void t.test('with the NodeOverlay gate on, a -30% savings plan on m7i moves the plan from m6i.large to the discounted m7i.large', async (t) => {
  const { code, report } = await plan('--feature-gates', 'NodeOverlay=true');
  t.equal(code, 0);
  t.same(report.nodeClaims.map((c) => [c.instanceTypes, c.pricePerHour]), [[['m7i.large'], 0.07056]], 'm7i.large at 0.1008 × 0.7');
});

void t.test('with the gate off (its default) the overlay does nothing, as in Karpenter, and plan says it ignored it', async (t) => {
  const { code, report, stderr } = await plan();
  t.equal(code, 0);
  t.same(report.nodeClaims.map((c) => [c.instanceTypes, c.pricePerHour]), [[['m6i.large'], 0.096]]);
  t.match(stderr, 'ignoring 1 NodeOverlay(s): the NodeOverlay gate is off');
});

void t.test('an unknown gate is refused with the usage', async (t) => {
  const { code, stderr } = await plan('--feature-gates', 'Teleport=true');
  t.equal(code, 2);
  t.match(stderr, '--feature-gates: "Teleport=true" is not Name=true|false');
});

void t.test('a capacity overlay gives c7i an extended resource, so a pod that asks for it gets a c7i node instead of none', async (t) => {
  const file = new URL('./fixtures/plan-overlay/extended-resource.yaml', import.meta.url).pathname;
  const runWith = async (...extra: string[]): Promise<PlanReport> => {
    let stdout = '';
    t.equal(await planCommand.run(['-f', file, '-o', 'json', ...extra], { stdout: (s) => { stdout += s; }, stderr: () => undefined, interrupted: new Promise(() => undefined) }), 0);
    return JSON.parse(stdout) as PlanReport;
  };
  const off = await runWith();
  t.match(off.unschedulable, [{ pod: 'shop/app', reason: /too little example\.com\/fpga/ }]);
  const on = await runWith('--feature-gates', 'NodeOverlay=true');
  t.same(on.nodeClaims.map((c) => c.instanceTypes), [['c7i.large']]);
});
