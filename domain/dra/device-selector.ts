import { parseQuantity } from '../quantity.js';
import type { Device, DeviceAttribute } from './resource-api.js';

/**
 * The CEL device selectors nodesmith evaluates itself, exactly: a conjunction (`&&`) of clauses of the forms the
 * vendors' DeviceClasses and their examples use:
 *   device.driver == "gpu.nvidia.com"
 *   device.attributes["gpu.nvidia.com"].productName == "NVIDIA A10G"     (also ['…']['…'], ints and booleans)
 *   device.capacity["gpu.nvidia.com"].memory.compareTo(quantity("40Gi")) >= 0   (>, >=, <, <=, ==)
 * Anything else is not guessed at: parsing answers with the part it cannot evaluate, and the pod is told.
 */
export type Clause =
  | { readonly kind: 'driver'; readonly value: string }
  | { readonly kind: 'attribute'; readonly domain: string; readonly name: string; readonly value: string | number | boolean }
  | { readonly kind: 'capacity'; readonly domain: string; readonly name: string; readonly op: string; readonly quantity: bigint };

export type ParsedSelector = { readonly clauses: readonly Clause[] } | { readonly unsupported: string };

const quoted = String.raw`(?:"([^"\\]*)"|'([^'\\]*)')`;
const ident = String.raw`([A-Za-z_][A-Za-z0-9_]*)`;
const driverClause = new RegExp(String.raw`^device\.driver\s*==\s*${quoted}$`);
const attributeClause = new RegExp(String.raw`^device\.attributes\[${quoted}\](?:\.${ident}|\[${quoted}\])\s*==\s*(.+)$`);
const capacityClause = new RegExp(String.raw`^device\.capacity\[${quoted}\](?:\.${ident}|\[${quoted}\])\.compareTo\(quantity\(${quoted}\)\)\s*(>=|<=|==|>|<)\s*0$`);
const literal = new RegExp(String.raw`^(?:${quoted}|(-?\d+)|(true|false))$`);

/** The text between `&&`s outside quotes; undefined when the expression has `||`, `!` or other operators. */
function splitConjunction(expression: string): string[] {
  const parts: string[] = [];
  let current = '';
  let quote: string | undefined;
  for (let i = 0; i < expression.length; i++) {
    const ch = expression[i] ?? '';
    if (quote !== undefined) {
      if (ch === quote) quote = undefined;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
    } else if (ch === '&' && expression[i + 1] === '&') {
      parts.push(current);
      current = '';
      i++;
      continue;
    }
    current += ch;
  }
  parts.push(current);
  return parts.map(unwrap);
}

/** A clause without the parentheses around it. */
function unwrap(text: string): string {
  let out = text.trim();
  while (out.startsWith('(') && out.endsWith(')') && !/[()]/.test(out.slice(1, -1).replace(/\([^()]*\)/g, ''))) out = out.slice(1, -1).trim();
  return out;
}

function parseLiteral(text: string): string | number | boolean | undefined {
  const m = literal.exec(text.trim());
  if (m === null) return undefined;
  if (m[3] !== undefined) return Number(m[3]);
  if (m[4] !== undefined) return m[4] === 'true';
  return m[1] ?? m[2] ?? '';
}

const first = (...values: (string | undefined)[]): string => values.find((v) => v !== undefined) ?? '';

function parseAttribute(text: string): Clause | undefined {
  const m = attributeClause.exec(text);
  const value = m === null ? undefined : parseLiteral(m[6] ?? '');
  if (m === null || value === undefined) return undefined;
  return { kind: 'attribute', domain: first(m[1], m[2]), name: first(m[3], m[4], m[5]), value };
}

function parseCapacity(text: string): Clause | undefined {
  const m = capacityClause.exec(text);
  if (m === null) return undefined;
  return { kind: 'capacity', domain: first(m[1], m[2]), name: first(m[3], m[4], m[5]), op: first(m[8]), quantity: parseQuantity(first(m[6], m[7])) };
}

function parseClause(text: string): Clause | undefined {
  const driver = driverClause.exec(text);
  if (driver !== null) return { kind: 'driver', value: first(driver[1], driver[2]) };
  return parseAttribute(text) ?? parseCapacity(text);
}

/** Parses one CEL selector into clauses, or says which part nodesmith does not evaluate. */
export function parseSelector(expression: string): ParsedSelector {
  const clauses: Clause[] = [];
  for (const part of splitConjunction(expression)) {
    if (part === 'true') continue;
    let clause: Clause | undefined;
    try {
      clause = /\|\||!(?!=)/.test(part.replace(new RegExp(quoted, 'g'), '""')) ? undefined : parseClause(part);
    } catch {
      clause = undefined;
    }
    if (clause === undefined) return { unsupported: part };
    clauses.push(clause);
  }
  return { clauses };
}

/**
 * An attribute as CEL sees it under `device.attributes[domain]`: the driver's own attributes are published
 * unqualified and read under the driver's name; any other domain reads `domain/name`.
 */
function attributeOf(device: Device, driver: string, domain: string, name: string): DeviceAttribute | undefined {
  const attributes = device.attributes ?? {};
  return attributes[`${domain}/${name}`] ?? (domain === driver ? attributes[name] : undefined);
}

function compare(a: bigint, op: string, b: bigint): boolean {
  switch (op) {
    case '>=': return a >= b;
    case '>': return a > b;
    case '<=': return a <= b;
    case '<': return a < b;
    default: return a === b;
  }
}

function attributeHolds(clause: Clause & { kind: 'attribute' }, driver: string, device: Device): boolean {
  const attribute = attributeOf(device, driver, clause.domain, clause.name);
  return attribute !== undefined && (attribute.string ?? attribute.int ?? attribute.bool ?? attribute.version) === clause.value;
}

function capacityHolds(clause: Clause & { kind: 'capacity' }, driver: string, device: Device): boolean {
  const capacity = device.capacity?.[`${clause.domain}/${clause.name}`] ?? (clause.domain === driver ? device.capacity?.[clause.name] : undefined);
  return capacity !== undefined && compare(parseQuantity(capacity.value), clause.op, clause.quantity);
}

function clauseHolds(clause: Clause, driver: string, device: Device): boolean {
  switch (clause.kind) {
    case 'driver': return driver === clause.value;
    case 'attribute': return attributeHolds(clause, driver, device);
    case 'capacity': return capacityHolds(clause, driver, device);
  }
}

/** Whether a device of `driver` satisfies every clause (an empty list holds for every device). */
export function deviceMatches(clauses: readonly Clause[], driver: string, device: Device): boolean {
  return clauses.every((clause) => clauseHolds(clause, driver, device));
}
