import { parseQuantity } from '../quantity.js';
import { fieldPath, problem, type Problem } from './problem.js';

type Obj = Record<string, unknown>;

function isObject(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A quantity as the API server reads it, or the problem it would report (not a quantity, negative). */
function quantityProblem(value: unknown, path: string): Problem | bigint {
  if (typeof value !== 'string' && typeof value !== 'number') {
    return problem(path, 'quantity', value, 'must be a quantity such as 500m, 2 or 1.5Gi');
  }
  let amount: bigint;
  try {
    amount = parseQuantity(value);
  } catch {
    return problem(path, 'quantity', value, 'quantities must match the regular expression \'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$\'');
  }
  return amount < 0n ? problem(path, 'quantity-non-negative', value, 'must be greater than or equal to 0') : amount;
}

/** Each value of a ResourceList, parsed; the problems of the ones the API server would refuse. */
function resourceList(list: unknown, path: string, out: Problem[]): Map<string, bigint> {
  const amounts = new Map<string, bigint>();
  if (list === undefined || list === null) return amounts;
  if (!isObject(list)) {
    out.push(problem(path, 'type', list, 'must be a map of resource name to quantity'));
    return amounts;
  }
  for (const [name, value] of Object.entries(list)) {
    const parsed = quantityProblem(value, fieldPath(path, name));
    if (typeof parsed === 'bigint') amounts.set(name, parsed);
    else out.push(parsed);
  }
  return amounts;
}

function containerProblems(container: unknown, path: string): Problem[] {
  const resources = isObject(container) ? container['resources'] : undefined;
  if (resources === undefined || resources === null) return [];
  if (!isObject(resources)) return [problem(fieldPath(path, 'resources'), 'type', resources, 'must be an object')];
  const out: Problem[] = [];
  const requests = resourceList(resources['requests'], fieldPath(path, 'resources', 'requests'), out);
  const limits = resourceList(resources['limits'], fieldPath(path, 'resources', 'limits'), out);
  for (const [name, request] of requests) {
    const limit = limits.get(name);
    if (limit === undefined || request <= limit) continue;
    const raw = (key: 'requests' | 'limits'): unknown => (resources[key] as Obj)[name];
    out.push(problem(fieldPath(path, 'resources', 'requests', name), 'request-within-limit', raw('requests'), `must be less than or equal to ${name} limit of ${String(raw('limits'))}`));
  }
  return out;
}

/**
 * The pod spec's resource quantities, checked as the API server's pod validation does: every request,
 * limit and overhead a quantity, none negative, no request above its limit. So `validate` and `plan`
 * refuse offline what `kubectl apply` would be refused online.
 */
export function checkPodResources(spec: unknown, base: string): Problem[] {
  if (!isObject(spec)) return [];
  const out: Problem[] = [];
  for (const field of ['initContainers', 'containers'] as const) {
    const containers = spec[field];
    if (!Array.isArray(containers)) continue;
    containers.forEach((container: unknown, index) => { out.push(...containerProblems(container, fieldPath(base, field, index))); });
  }
  resourceList(spec['overhead'], fieldPath(base, 'overhead'), out);
  return out;
}
