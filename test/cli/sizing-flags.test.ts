import t from 'tap';
import { parseRunFlags } from '../../cli/run-flags.js';

void t.test("RESERVED_ENIS and VM_MEMORY_OVERHEAD_PERCENT are read as Karpenter's operator reads them, flags first", (t) => {
  const unset = parseRunFlags(['--cluster-name=c'], {});
  t.same(Array.isArray(unset) ? unset : [unset.aws.reservedEnis, unset.aws.vmMemoryOverheadPercent], [undefined, undefined], 'the catalog keeps its defaults (0, 0.075)');
  const fromEnv = parseRunFlags(['--cluster-name=c'], { RESERVED_ENIS: '1', VM_MEMORY_OVERHEAD_PERCENT: '0.05' });
  t.same(Array.isArray(fromEnv) ? fromEnv : [fromEnv.aws.reservedEnis, fromEnv.aws.vmMemoryOverheadPercent], [1, 0.05]);
  const fromFlag = parseRunFlags(['--cluster-name=c', '--reserved-enis=2'], { RESERVED_ENIS: '1' });
  t.equal(Array.isArray(fromFlag) ? undefined : fromFlag.aws.reservedEnis, 2);
  t.same(parseRunFlags(['--cluster-name=c', '--reserved-enis=1.5', '--vm-memory-overhead-percent=-1'], {}), [
    '--reserved-enis must be a non-negative integer; got "1.5"',
    '--vm-memory-overhead-percent must be a non-negative number; got "-1"',
  ]);
  t.end();
});
