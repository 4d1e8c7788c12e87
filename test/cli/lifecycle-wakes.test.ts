import t from 'tap';
import { wakeOnChange } from '../../cli/lifecycle-wiring.js';

void t.test('a Node or NodeClaim change wakes registration at once, not at its next 10 s pass', (t) => {
  t.ok(wakeOnChange('node').includes('nodeclaim.registration'), 'a Node turning Ready is what registration waits for');
  t.ok(wakeOnChange('nodeclaim').includes('nodeclaim.registration'), 'a NodeClaim just launched has a Node to wait for');
  t.notOk(wakeOnChange('pod').includes('nodeclaim.registration'), 'pods have nothing to do with it');
  t.end();
});
