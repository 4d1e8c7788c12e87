import t from 'tap';
import { formatAmount, parseQuantity, QuantityError, resourceAmount } from '../../domain/quantity.js';

void t.test('quantities parse exactly into nano-units', (t) => {
  const cases: [string | number, bigint][] = [
    ['1', 1_000_000_000n], ['500m', 500_000_000n], ['0.1', 100_000_000n], ['.5', 500_000_000n],
    ['1Ki', 1024n * 1_000_000_000n], ['1.5Gi', 1610612736n * 1_000_000_000n], ['1e3', 1000n * 1_000_000_000n],
    ['1E', 10n ** 27n], ['2k', 2000n * 1_000_000_000n], ['1n', 1n], ['-2', -2_000_000_000n], [3, 3_000_000_000n],
    ['1Ei', (1n << 60n) * 1_000_000_000n], ['0.0000000001', 1n],
  ];
  for (const [input, nanos] of cases) t.equal(parseQuantity(input), nanos, String(input));
  t.end();
});

void t.test('bad quantities throw a QuantityError that names the input', (t) => {
  for (const input of ['', 'ten', '1.5.2Gi', '1Gb', 'Mi']) {
    t.throws(() => parseQuantity(input), QuantityError, input);
  }
  t.match(() => parseQuantity('ten'), Function);
  try { parseQuantity('ten'); } catch (e) { t.match((e as Error).message, /"ten"/); }
  t.end();
});

void t.test('cpu is kept in millicores and other resources in whole units rounded up', (t) => {
  t.equal(resourceAmount('cpu', '250m'), 250);
  t.equal(resourceAmount('cpu', '0.0001'), 1);
  t.equal(resourceAmount('memory', '1Mi'), 1048576);
  t.equal(resourceAmount('memory', '100m'), 1);
  t.equal(resourceAmount('pods', 110), 110);
  t.end();
});

void t.test('amounts format back into readable quantities', (t) => {
  t.equal(formatAmount('cpu', 2000), '2');
  t.equal(formatAmount('cpu', 250), '250m');
  t.equal(formatAmount('memory', 2 ** 30), '1Gi');
  t.equal(formatAmount('memory', 1.5 * 2 ** 30), '1536Mi');
  t.equal(formatAmount('memory', 2 ** 30 + 1), '1.0Gi');
  t.equal(formatAmount('memory', 100), '100');
  t.equal(formatAmount('pods', 7), '7');
  t.end();
});
