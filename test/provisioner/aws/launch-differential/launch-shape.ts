import type { ParsedUserData } from '../../../support/karpenter-oracle.js';
import type { FleetShape } from './fleet-shape.js';

/**
 * A launch as both sides are compared: per instance type, the launch template it would launch
 * with. Keyed by instance type so the two sides may group types into templates differently and
 * still be compared type by type (which also compares the AMI each type gets).
 */
export interface LaunchShape {
  readonly outcome: 'launched' | 'refused' | 'failed';
  /** Why it did not launch; reported, not compared (the two sides word errors differently). */
  readonly why?: string;
  readonly types: Record<string, TemplateShape>;
  /** The CreateFleet request, when the launch sent one. */
  readonly fleet?: FleetShape;
}

export interface TemplateShape {
  readonly imageId: string;
  /** Parsed; for MIME user data, with nodeadm's verdict on it (`valid` or `rejected: …`). */
  readonly userData: Omit<ParsedUserData, 'nodeadm'> & { readonly nodeadm?: string };
  /** LaunchTemplateData without ImageId and UserData, nulls and unset enums removed, tags as maps. */
  readonly data: Record<string, unknown>;
  /** Tags on the launch template itself. */
  readonly templateTags: Record<string, string>;
}

interface Tag {
  readonly Key?: string | undefined;
  readonly Value?: string | undefined;
}

interface TagSpec {
  readonly ResourceType?: string | undefined;
  readonly Tags?: readonly Tag[] | undefined;
}

export function tagMap(tags: readonly Tag[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const t of tags ?? []) if (t.Key !== undefined) out[t.Key] = t.Value ?? '';
  return out;
}

/**
 * Drops what EC2 reads as "not set": null, undefined, the empty string Go's SDK uses for an unset
 * enum, and containers left empty by that. Both sides go through it.
 */
export function stripUnset(value: unknown): unknown {
  if (Array.isArray(value)) {
    const items = value.map(stripUnset).filter((v) => v !== undefined);
    return items.length === 0 ? undefined : items;
  }
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const s = stripUnset(v);
      if (s !== undefined) out[k] = s;
    }
    return Object.keys(out).length === 0 ? undefined : out;
  }
  if (value === null || value === undefined || value === '') return undefined;
  return value;
}

/** LaunchTemplateData in the compared form: tag specifications as a map per resource type. */
export function templateData(data: Record<string, unknown>): Record<string, unknown> {
  // ImageId and UserData are compared on their own (the AMI per type, the user data parsed).
  const rest = Object.fromEntries(Object.entries(data).filter(([k]) => !['ImageId', 'UserData', 'TagSpecifications'].includes(k)));
  const tagSpecs: Record<string, Record<string, string>> = {};
  for (const spec of (data['TagSpecifications'] ?? []) as TagSpec[]) tagSpecs[spec.ResourceType ?? ''] = tagMap(spec.Tags);
  return (stripUnset({ ...rest, TagSpecifications: tagSpecs }) ?? {}) as Record<string, unknown>;
}

export function templateTags(specs: readonly TagSpec[] | undefined): Record<string, string> {
  return tagMap(specs?.find((s) => s.ResourceType === 'launch-template')?.Tags);
}

/** One place the two launches disagree. */
export interface Difference {
  readonly caseName: string;
  readonly path: string;
  readonly karpenter: unknown;
  readonly nodesmith: unknown;
}

/** Every leaf path where a and b differ; instance types are kept out of the path (`types/*`). */
export function diffShapes(caseName: string, karpenter: LaunchShape, nodesmith: LaunchShape): Difference[] {
  const out = new Map<string, Difference>();
  const add = (path: string, k: unknown, n: unknown): void => {
    if (!out.has(path)) out.set(path, { caseName, path, karpenter: k, nodesmith: n });
  };
  if (karpenter.outcome !== nodesmith.outcome) {
    add('outcome', `${karpenter.outcome}${karpenter.why === undefined ? '' : `: ${karpenter.why}`}`, `${nodesmith.outcome}${nodesmith.why === undefined ? '' : `: ${nodesmith.why}`}`);
    return [...out.values()];
  }
  // Two launches that both fail agree only on a reason docs/launch-differences.md lists for the case.
  if (karpenter.outcome !== 'launched') {
    add(`outcome/both-${karpenter.outcome}`, karpenter.why, nodesmith.why);
    return [...out.values()];
  }
  diffFleets(karpenter.fleet, nodesmith.fleet, add);
  const types = new Set([...Object.keys(karpenter.types), ...Object.keys(nodesmith.types)]);
  for (const t of [...types].sort()) {
    const k = karpenter.types[t];
    const n = nodesmith.types[t];
    if (k === undefined || n === undefined) {
      add('types/*', k === undefined ? `no template for ${t}` : 'template', n === undefined ? `no template for ${t}` : 'template');
      continue;
    }
    diffValues('types/*', k, n, add);
  }
  return [...out.values()];
}

type Add = (path: string, a: unknown, b: unknown) => void;

/** The two CreateFleet requests, field by field; instance types and zones are kept out of the paths. */
function diffFleets(k: FleetShape | undefined, n: FleetShape | undefined, add: Add): void {
  if (k === undefined || n === undefined) {
    if (k !== n) add('fleet', k === undefined ? 'no CreateFleet' : 'CreateFleet', n === undefined ? 'no CreateFleet' : 'CreateFleet');
    return;
  }
  diffValues('fleet/request', k.request, n.request, add);
  diffValues('fleet/tags', k.tags, n.tags, add);
  for (const [path, a, b] of [['fleet/taggedResources', k.taggedResources, n.taggedResources], ['fleet/overrides', k.overrides, n.overrides], ['fleet/order', k.order, n.order], ['fleet/specs', k.specs, n.specs]] as const)
    if (JSON.stringify(a) !== JSON.stringify(b)) add(path, a, b);
  for (const key of k.overrides) {
    const a = k.byOverride[key];
    const b = n.byOverride[key];
    if (a !== undefined && b !== undefined) diffValues('fleet/overrides/*', a, b, add);
  }
}

function diffValues(path: string, a: unknown, b: unknown, add: Add): void {
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.max(a.length, b.length); i++) diffValues(`${path}/${String(i)}`, a[i], b[i], add);
    return;
  }
  if (isObject(a) && isObject(b)) {
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) diffValues(`${path}/${key}`, a[key], b[key], add);
    return;
  }
  if (JSON.stringify(a) !== JSON.stringify(b)) add(path, a, b);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
