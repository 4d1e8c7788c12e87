import t from 'tap';
import { parseExtenderFlags } from '../../cli/extender-command.js';
import { parseRunFlags } from '../../cli/run-flags.js';

void t.test("--pod-deletion-cost: binds rank pods by their node by default, not with none, and anything else is refused by name", (t) => {
  const run = (args: string[]): unknown => { const parsed = parseRunFlags(['--cluster-name=c', ...args], {}); return Array.isArray(parsed) ? parsed.join('; ') : parsed.extender.scaleInRank; };
  t.equal(run([]), true, 'nodesmith run: on by default');
  t.equal(run(['--pod-deletion-cost=by-node']), true);
  t.equal(run(['--pod-deletion-cost=none']), false);
  t.match(run(['--pod-deletion-cost=random']), /--pod-deletion-cost must be by-node or none; got "random"/);
  const extender = (args: string[]): unknown => { const parsed = parseExtenderFlags(args); return Array.isArray(parsed) ? parsed.join('; ') : parsed.scaleInRank; };
  t.equal(extender([]), true, 'nodesmith extender: the same default');
  t.equal(extender(['--pod-deletion-cost', 'none']), false);
  t.match(extender(['--pod-deletion-cost', 'off']), /--pod-deletion-cost must be by-node or none; got "off"/);
  t.end();
});
