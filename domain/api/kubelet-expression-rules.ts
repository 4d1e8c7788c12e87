import { compileKubeletExpression, isReservedExpression } from './kubelet-expression.js';
import { fieldPath, problem, type Problem } from './problem.js';

/** The parts of spec.kubelet that may hold an expression (aws provider #9326). */
interface ExpressionFields {
  readonly maxPods?: unknown;
  readonly kubeReserved?: Readonly<Record<string, unknown>>;
  readonly systemReserved?: Readonly<Record<string, unknown>>;
}

function compiles(path: string, expression: string, what: string): Problem[] {
  const program = compileKubeletExpression(expression);
  return 'error' in program ? [problem(path, 'kubelet-expression', expression, `${what}: ${program.error}`)] : [];
}

function checkReserved(field: 'kubeReserved' | 'systemReserved', values: Readonly<Record<string, unknown>> | undefined): Problem[] {
  const out: Problem[] = [];
  for (const [key, value] of Object.entries(values ?? {})) {
    if (typeof value !== 'string') continue;
    const path = fieldPath(`spec.kubelet.${field}`, key);
    if (value.startsWith('-')) out.push(problem(path, 'kubelet-reserved-negative', value, "a reservation can't be a negative resource quantity"));
    else if (isReservedExpression(value)) out.push(...compiles(path, value, 'neither a quantity nor a valid CEL expression'));
  }
  return out;
}

/**
 * Each expression compiled once at admission, so a bad one is refused naming its field and the parser's or type
 * checker's reason, where Karpenter accepts the class and then marks it `ValidationSucceeded=False`
 * (`KubeletExpressionInvalid`). What an expression yields on each instance type is the sizing's to check
 * (node-kubelet.ts): a type where it fails cannot launch, and the class's status names it.
 */
export function checkKubeletExpressions(kubelet: ExpressionFields | undefined): Problem[] {
  if (kubelet === undefined) return [];
  const { maxPods } = kubelet;
  const pods = typeof maxPods === 'string'
    ? compiles('spec.kubelet.maxPods', maxPods, 'not a valid CEL expression')
    : typeof maxPods === 'number' && maxPods < 0 ? [problem('spec.kubelet.maxPods', 'minimum', maxPods, 'maxPods must be a non-negative integer when set to an integer')] : [];
  return [...pods, ...checkReserved('kubeReserved', kubelet.kubeReserved), ...checkReserved('systemReserved', kubelet.systemReserved)];
}
