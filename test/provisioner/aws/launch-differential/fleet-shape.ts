import { stripUnset, tagMap } from './launch-shape.js';

/** The CreateFleet request fields both sides send, in the SDK's (and Go's JSON) names; Go writes unset ones as null. */
export interface FleetRequest {
  readonly LaunchTemplateConfigs?: readonly FleetConfig[] | null | undefined;
  readonly TagSpecifications?: readonly FleetTags[] | null | undefined;
}

interface FleetTags {
  readonly ResourceType?: string | null | undefined;
  readonly Tags?: readonly { readonly Key?: string | undefined; readonly Value?: string | undefined }[] | null | undefined;
}

interface FleetConfig {
  readonly LaunchTemplateSpecification?: { readonly LaunchTemplateName?: string | null | undefined; readonly LaunchTemplateId?: string | null | undefined; readonly Version?: string | null | undefined } | null | undefined;
  readonly Overrides?: readonly FleetOverride[] | null | undefined;
}

interface FleetOverride {
  readonly InstanceType?: string | null | undefined;
  readonly AvailabilityZone?: string | null | undefined;
  readonly Priority?: number | null | undefined;
}

/**
 * A CreateFleet request as the two sides are compared. Each side names its launch templates its own way (Karpenter by
 * a hash of its options, nodesmith by the id of a template named by a hash of its data), so a config is known by the
 * instance types it launches, and each override by its type and zone; the templates themselves are compared type by
 * type (`types/*`).
 */
export interface FleetShape {
  /** Every field but the configs and tags: Type, Context, TargetCapacitySpecification, the allocation options. */
  readonly request: Record<string, unknown>;
  /** The resource types tagged, in the order sent, and each one's tags. */
  readonly taggedResources: string[];
  readonly tags: Record<string, Record<string, string>>;
  /** The overrides sent, as `type@zone`, sorted. */
  readonly overrides: string[];
  /** Each override's fields by `type@zone`, with `template` the instance types its config launches. */
  readonly byOverride: Record<string, Record<string, unknown>>;
  /** Each config's overrides in the order sent; ties in Priority are sorted, their order being Go's sort.Slice's. */
  readonly order: string[][];
  /** How each config names its template (`LaunchTemplateName` or `LaunchTemplateId`) and which version. */
  readonly specs: string[];
}

function overrideKey(o: FleetOverride): string {
  return `${o.InstanceType ?? ''}@${o.AvailabilityZone ?? ''}`;
}

/** The overrides of a config in the order sent, with runs of equal Priority sorted by name. */
function sentOrder(overrides: readonly FleetOverride[]): string[] {
  const runs: FleetOverride[][] = [];
  for (const o of overrides) {
    const run = runs.at(-1);
    if (run !== undefined && run[0]?.Priority === o.Priority) run.push(o);
    else runs.push([o]);
  }
  return runs.flatMap((run) => run.map(overrideKey).sort());
}

/** An object's fields but the named ones, unset ones dropped: every field is compared, not only the ones we know. */
function fieldsBut(value: object, names: readonly string[]): Record<string, unknown> {
  return (stripUnset(Object.fromEntries(Object.entries(value).filter(([k]) => !names.includes(k)))) ?? {}) as Record<string, unknown>;
}

function specOf(config: FleetConfig): string {
  const spec = config.LaunchTemplateSpecification;
  const by = typeof spec?.LaunchTemplateName === 'string' ? 'LaunchTemplateName' : typeof spec?.LaunchTemplateId === 'string' ? 'LaunchTemplateId' : 'nothing';
  return `${by} ${spec?.Version ?? ''}`;
}

function configsOf(configs: readonly FleetConfig[]): Pick<FleetShape, 'byOverride' | 'order' | 'specs'> {
  const byOverride: Record<string, Record<string, unknown>> = {};
  for (const config of configs) {
    const overrides = config.Overrides ?? [];
    const template = [...new Set(overrides.map((o) => o.InstanceType ?? ''))].sort().join(',');
    for (const o of overrides) byOverride[overrideKey(o)] = { ...fieldsBut(o, ['InstanceType', 'AvailabilityZone']), template };
  }
  return {
    byOverride,
    order: configs.map((c) => sentOrder(c.Overrides ?? [])).sort((a, b) => (a[0] ?? '').localeCompare(b[0] ?? '')),
    specs: configs.map(specOf).sort(),
  };
}

export function fleetShape(fleet: FleetRequest): FleetShape {
  const tagSpecs = fleet.TagSpecifications ?? [];
  const tags: Record<string, Record<string, string>> = {};
  for (const s of tagSpecs) tags[s.ResourceType ?? ''] = tagMap(s.Tags ?? []);
  const configs = configsOf(fleet.LaunchTemplateConfigs ?? []);
  return {
    request: fieldsBut(fleet, ['LaunchTemplateConfigs', 'TagSpecifications']),
    taggedResources: tagSpecs.map((s) => s.ResourceType ?? ''),
    tags,
    overrides: Object.keys(configs.byOverride).sort(),
    ...configs,
  };
}
