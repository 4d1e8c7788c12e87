import t from 'tap';
import { compileKubeletExpression, isReservedExpression, type KubeletExpressionVariables } from '../../../domain/api/kubelet-expression.js';
import { checkKubeletExpressions } from '../../../domain/api/kubelet-expression-rules.js';

// Karpenter's c5.xlarge in its own tests (pkg/cel/environment_test.go): 4 vCPUs, 8 GiB, 4 ENIs of 15 addresses.
const c5xlarge: KubeletExpressionVariables = { vcpus: 4, memory_mib: 8192, default_enis: 4, ips_per_eni: 15, max_pods: 58, instance_type: 'c5.xlarge' };

function valueOf(expression: string, variables = c5xlarge): unknown {
  const program = compileKubeletExpression(expression);
  if ('error' in program) return { compileError: program.error };
  const out = program.evaluate(variables);
  return 'error' in out ? { error: out.error } : out.value;
}

void t.test('an expression sees the six variables of the instance type, as Karpenter names them', (t) => {
  t.equal(valueOf('((default_enis - 1) * (ips_per_eni - 1)) + 2'), 44, 'the ENI-limited formula');
  t.equal(valueOf('11 * max_pods + 255'), 11 * 58 + 255);
  t.equal(valueOf('memory_mib / 64'), 128, 'int division');
  t.equal(valueOf('instance_type == "c5.xlarge" ? 10 : 20'), 10, 'the name, in a conditional');
  t.equal(valueOf('instance_type.startsWith("m5") ? 1 : vcpus'), 4);
  t.end();
});

void t.test("max and min take two numbers in Karpenter's four overloads each", (t) => {
  t.equal(valueOf('max(60, vcpus * 30)'), 120, 'int, int');
  t.equal(valueOf('max(3.9, 7.9)'), 7, 'double, double: truncated towards zero as Go int64(v)');
  t.equal(valueOf('max(vcpus, 60.5)'), 60, 'int, double gives a double');
  t.equal(valueOf('min(110.5, max_pods)'), 58, 'double, int gives a double');
  t.equal(valueOf('min(3, 7)'), 3);
  t.equal(valueOf('min(3.9, 7.9)'), 3);
  t.equal(valueOf('min(vcpus, 2.5)'), 2);
  t.equal(valueOf('max(7.9, 3)'), 7);
  t.match(valueOf('max(1, 2, 3)'), { compileError: /max\(int, int, int\)/ }, 'not the variadic form');
  t.end();
});

void t.test('only an int or a double is a result, checked before any type is seen', (t) => {
  t.match(valueOf('vcpus > 4'), { compileError: /must return an int or a double, not bool/ });
  t.match(valueOf('instance_type'), { compileError: /not string/ });
  t.match(valueOf('dyn(vcpus)'), { compileError: /not dyn/ }, 'a dyn output is refused, as cel-go reports OutputType dyn');
  t.match(valueOf('vcpus * 2.5'), { compileError: /no such overload: int \* double/ }, 'CEL has no int × double: double(vcpus) * 2.5 is the way');
  t.equal(valueOf('double(vcpus) * 2.5'), 10);
  t.match(valueOf('undefined_var + 1'), { compileError: /Unknown variable: undefined_var/ });
  t.match(valueOf('((default_enis -'), { compileError: /Unexpected token/ });
  t.match(valueOf('   '), { compileError: 'the expression is empty' });
  t.end();
});

void t.test('what fails on one type is an error for that type, not a crash', (t) => {
  const twoCores = { ...c5xlarge, vcpus: 2, instance_type: 't3.small' };
  t.match(valueOf('memory_mib / (vcpus - 2)', twoCores), { error: /division by zero/ });
  t.equal(valueOf('memory_mib / (vcpus - 2)'), 4096, 'and a value where it does not');
  t.match(valueOf('double(memory_mib) / double(vcpus - 2)', twoCores), { error: /non-finite value \(Infinity\)/ });
  t.match(valueOf('9223372036854775807 + vcpus'), { error: /overflow/ }, 'int64 overflow is an error, as in cel-go');
  t.match(valueOf('int(instance_type)'), { error: /cannot convert/ });
  t.match(valueOf('4503599627370496 * vcpus'), { error: /out of range/ }, 'past what a number holds exactly');
  t.equal(valueOf('-0.5'), 0, 'a negative fraction truncates to zero, as int64(-0.5)');
  t.equal(valueOf('vcpus - 10'), -6, 'a negative result is a value: the field decides whether it may be');
  t.end();
});

void t.test('an expression is compiled once and its program reused', (t) => {
  t.equal(compileKubeletExpression('vcpus * 7'), compileKubeletExpression('vcpus * 7'));
  t.end();
});

void t.test('a reserved value is an expression when it is not a quantity', (t) => {
  for (const quantity of ['100m', '1Gi', '0.5', '1e3', '+2', '-1Gi', '.5Mi']) t.notOk(isReservedExpression(quantity), quantity);
  for (const expression of ['vcpus * 30', 'max(60, vcpus)', '100 + 1', 'memory_mib']) t.ok(isReservedExpression(expression), expression);
  t.end();
});

void t.test('admission compiles each expression and names its field and the reason', (t) => {
  t.same(checkKubeletExpressions(undefined), []);
  t.same(checkKubeletExpressions({ maxPods: 'min(250, ((default_enis - 1) * (ips_per_eni - 1)) * 16 + 2)', kubeReserved: { cpu: 'max(60, vcpus * 30)', memory: '1Gi' } }), []);
  t.same(checkKubeletExpressions({ maxPods: 20 }), []);
  t.match(checkKubeletExpressions({ maxPods: -1 }), [{ path: 'spec.kubelet.maxPods', message: /non-negative/ }]);
  t.match(checkKubeletExpressions({ maxPods: 'vcpus >' }), [{ path: 'spec.kubelet.maxPods', rule: 'kubelet-expression', message: /^not a valid CEL expression: / }]);
  t.match(checkKubeletExpressions({ systemReserved: { memory: 'memory_mib / 64 +', cpu: '-100m', pid: 10 } }), [
    { path: 'spec.kubelet.systemReserved.memory', message: /^neither a quantity nor a valid CEL expression: / },
    { path: 'spec.kubelet.systemReserved.cpu', rule: 'kubelet-reserved-negative' },
  ]);
  t.end();
});
