import { Environment, type ParseResult } from '@marcbachmann/cel-js';
import { quantityPattern } from './schema-values.js';

/**
 * What a kubelet expression sees of one instance type: Karpenter's InstanceTypeVars (aws provider #9326,
 * pkg/cel/environment.go), with its names. `memory_mib` is the type's memory as EC2 lists it (before the VM overhead),
 * `default_enis` the interfaces of its default network card, `max_pods` the pods Karpenter would give the type without
 * a maxPods expression (for kubeReserved and systemReserved: the pods the maxPods expression resolved to).
 */
export interface KubeletExpressionVariables {
  readonly vcpus: number;
  readonly memory_mib: number;
  readonly default_enis: number;
  readonly ips_per_eni: number;
  readonly max_pods: number;
  readonly instance_type: string;
}

const intVariables = ['vcpus', 'memory_mib', 'default_enis', 'ips_per_eni', 'max_pods'] as const;

type Numeric = bigint | number;
const larger = (a: Numeric, b: Numeric): Numeric => (a > b ? a : b);
const smaller = (a: Numeric, b: Numeric): Numeric => (a < b ? a : b);

/**
 * Karpenter's environment: the six variables, and `max`/`min` of two numbers with its four overloads each (int/int
 * gives an int, any double makes a double). No other function beyond CEL's standard ones (`int()`, `double()`, the
 * conditional).
 */
function kubeletEnvironment(): Environment {
  const env = new Environment();
  for (const name of intVariables) env.registerVariable(name, 'int');
  env.registerVariable('instance_type', 'string');
  for (const [name, pick] of [['max', larger], ['min', smaller]] as const) {
    env.registerFunction(`${name}(int, int): int`, pick);
    env.registerFunction(`${name}(double, double): double`, pick);
    env.registerFunction(`${name}(int, double): double`, (a: bigint, b: number) => Number(pick(Number(a), b)));
    env.registerFunction(`${name}(double, int): double`, (a: number, b: bigint) => Number(pick(a, Number(b))));
  }
  return env;
}

const environment = kubeletEnvironment();

/** A compiled expression: evaluate it per instance type. */
export interface KubeletProgram {
  readonly expression: string;
  /** The whole number it yields (a double truncated towards zero, as Karpenter's int64(v)), or why it yields none. */
  readonly evaluate: (variables: KubeletExpressionVariables) => { readonly value: number } | { readonly error: string };
}

/** The first line of a cel-js error: the message without the source excerpt and caret it draws below. */
function firstLine(e: unknown): string {
  return (e instanceof Error ? e.message : String(e)).split('\n')[0] ?? '';
}

function evaluateWith(parsed: ParseResult, variables: KubeletExpressionVariables): { value: number } | { error: string } {
  const context: Record<string, unknown> = { instance_type: variables.instance_type };
  for (const name of intVariables) context[name] = BigInt(variables[name]);
  let out: unknown;
  try {
    out = parsed(context);
  } catch (e: unknown) {
    return { error: firstLine(e) };
  }
  if (typeof out === 'bigint') {
    return out > BigInt(Number.MAX_SAFE_INTEGER) || out < -BigInt(Number.MAX_SAFE_INTEGER) ? { error: `${out.toString()} is out of range` } : { value: Number(out) };
  }
  // Karpenter refuses a non-finite double (a double division by zero), and truncates the rest.
  if (typeof out === 'number') return Number.isFinite(out) ? { value: Math.trunc(out) + 0 } : { error: `the expression returned a non-finite value (${String(out)})` };
  return { error: `the expression returned ${typeof out}, not a number` };
}

const compiled = new Map<string, KubeletProgram | { readonly error: string }>();

/**
 * An expression parsed and type-checked once (admission calls this first; the sizing of each instance type then gets
 * the same program from the cache): it must parse, use only the six variables and the functions above, and yield an
 * int or a double, as Karpenter's Compile requires (`vcpus > 4`, a bool, is refused; so is `vcpus * 2.5`: CEL has no
 * int × double, write `double(vcpus) * 2.5`).
 */
export function compileKubeletExpression(expression: string): KubeletProgram | { readonly error: string } {
  const known = compiled.get(expression);
  if (known !== undefined) return known;
  const result = compile(expression);
  // The cache holds the expressions of the classes there are; a bound keeps a stream of edited ones from growing it.
  if (compiled.size >= 1024) compiled.clear();
  compiled.set(expression, result);
  return result;
}

function compile(expression: string): KubeletProgram | { readonly error: string } {
  if (expression.trim() === '') return { error: 'the expression is empty' };
  let parsed: ParseResult;
  try {
    parsed = environment.parse(expression);
  } catch (e: unknown) {
    return { error: firstLine(e) };
  }
  const checked = parsed.check();
  if (!checked.valid) return { error: firstLine(checked.error) };
  if (checked.type !== 'int' && checked.type !== 'double') return { error: `the expression must return an int or a double, not ${checked.type ?? 'an unknown type'}` };
  return { expression, evaluate: (variables) => evaluateWith(parsed, variables) };
}

/** A Kubernetes quantity (what resource.ParseQuantity accepts, sign included): such a reserved value is static. */
const quantity = new RegExp(quantityPattern);

/**
 * Whether a kubeReserved or systemReserved value is an expression: Karpenter's rule, anything that does not parse as
 * a quantity (a maxPods expression is any string, its static form a number).
 */
export function isReservedExpression(value: string): boolean {
  return !quantity.test(value);
}
