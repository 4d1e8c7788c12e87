import { compileKubeletExpression, isReservedExpression, type KubeletExpressionVariables } from '../api/kubelet-expression.js';
import type { MachineFacts } from './allocatable.js';

/** The largest maxPods (the kubelet's int32), as Karpenter bounds an evaluated one. */
const maxInt32 = 2 ** 31 - 1;

/** What a reserved value or maxPods resolved to on one type, or why it could not be (the type then cannot launch). */
export type Resolved<T> = { readonly value: T; readonly refusal?: undefined } | { readonly value?: undefined; readonly refusal: string };

/** Whether spec.kubelet holds an expression (aws provider #9326): a string maxPods, a reserved value not a quantity. */
export function hasKubeletExpressions(kubelet: { readonly maxPods?: unknown; readonly kubeReserved?: Readonly<Record<string, string>>; readonly systemReserved?: Readonly<Record<string, string>> }): boolean {
  return typeof kubelet.maxPods === 'string' || [kubelet.kubeReserved, kubelet.systemReserved].some((m) => Object.values(m ?? {}).some(isReservedExpression));
}

/** The variables for one type (Karpenter's buildCELVars): its vCPUs, memory, default card's ENIs and their IPv4s, and pods. */
export function expressionVariables(instanceType: string, machine: MachineFacts, pods: number): KubeletExpressionVariables {
  return { vcpus: machine.vcpu, memory_mib: machine.memoryMiB, default_enis: machine.enis, ips_per_eni: machine.ipv4PerEni, max_pods: pods, instance_type: instanceType };
}

function evaluate(path: string, expression: string, variables: KubeletExpressionVariables): Resolved<number> {
  const program = compileKubeletExpression(expression);
  // Admission compiles every expression first; a class admitted before (or with the webhook off) still says why.
  if (!('evaluate' in program)) return { refusal: `${path}: "${expression}" is not a valid expression: ${program.error}` };
  const out = program.evaluate(variables);
  if ('error' in out) return { refusal: `${path}: "${expression}" failed on ${variables.instance_type}: ${out.error}` };
  return { value: out.value };
}

/** A maxPods expression's pods on one type: a whole number from 0 to the kubelet's int32 maximum. */
export function resolveMaxPods(expression: string, variables: KubeletExpressionVariables): Resolved<number> {
  const out = evaluate('spec.kubelet.maxPods', expression, variables);
  if (out.value === undefined || (out.value >= 0 && out.value <= maxInt32)) return out;
  return { refusal: `spec.kubelet.maxPods: "${expression}" evaluated to ${String(out.value)} on ${variables.instance_type}, outside 0–${String(maxInt32)}` };
}

/** Up to the next multiple, as Karpenter rounds a reservation so near-equal types share a launch template. */
function roundUp(value: number, step: number): number {
  return Math.ceil(value / step) * step;
}

/**
 * An expression's number as the quantity its key means (Karpenter's formatResourceResult): millicores for cpu (up to
 * 10m), MiB for memory (up to 16Mi), GiB for ephemeral-storage, a bare count for pid.
 */
export function reservedQuantity(key: string, value: number): string {
  if (key === 'cpu') return `${String(roundUp(value, 10))}m`;
  if (key === 'memory') return `${String(roundUp(value, 16))}Mi`;
  if (key === 'ephemeral-storage') return `${String(value)}Gi`;
  return String(value);
}

/**
 * kubeReserved or systemReserved on one type: each quantity as written, each expression evaluated (with `max_pods` the
 * type's resolved pods) and written as its key's quantity. A negative result refuses the type, as Karpenter's
 * validation refuses the class.
 */
export function resolveReserved(field: 'kubeReserved' | 'systemReserved', values: Readonly<Record<string, string>>, variables: KubeletExpressionVariables): Resolved<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(values)) {
    if (!isReservedExpression(value)) {
      out[key] = value;
      continue;
    }
    const path = `spec.kubelet.${field}.${key}`;
    const result = evaluate(path, value, variables);
    if (result.value === undefined) return result;
    if (result.value < 0) return { refusal: `${path}: "${value}" evaluated to ${String(result.value)} on ${variables.instance_type}, a reservation cannot be negative` };
    out[key] = reservedQuantity(key, result.value);
  }
  return { value: out };
}
