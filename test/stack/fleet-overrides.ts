import type { CapacityFault } from './fault-proxy.js';

/**
 * CreateFleet's launch template overrides in the EC2 Query form, for the fault proxy's capacity faults: which
 * overrides a fault matches, the request without them (renumbered, as moto needs), and EC2's errorSet item for each.
 */
export interface Override {
  readonly prefix: string;
  readonly fields: Map<string, string>;
}

const overrideKey = /^(LaunchTemplateConfigs\.\d+\.Overrides\.\d+)\.(.+)$/;

export function collectOverrides(params: URLSearchParams): Override[] {
  const byPrefix = new Map<string, Map<string, string>>();
  for (const [key, value] of params) {
    const m = overrideKey.exec(key);
    if (m?.[1] === undefined || m[2] === undefined) continue;
    const fields = byPrefix.get(m[1]) ?? new Map<string, string>();
    fields.set(m[2], value);
    byPrefix.set(m[1], fields);
  }
  return [...byPrefix].map(([prefix, fields]) => ({ prefix, fields }));
}

export function matches(fault: CapacityFault, o: Override, capacityType: string): boolean {
  return (
    (fault.instanceType === undefined || fault.instanceType === o.fields.get('InstanceType')) &&
    (fault.zone === undefined || fault.zone === o.fields.get('AvailabilityZone')) &&
    (fault.capacityType === undefined || fault.capacityType === capacityType)
  );
}

const configKey = /^(LaunchTemplateConfigs\.\d+)\.(.+)$/;

/** Which configs keep at least one override, renumbered 1..n in request order. */
function survivingConfigs(
  params: URLSearchParams,
  failed: ReadonlySet<string>,
): Map<string, string> {
  const kept = new Map<string, string>();
  for (const key of params.keys()) {
    const m = overrideKey.exec(key);
    if (m?.[1] === undefined || failed.has(m[1])) continue;
    const config = m[1].replace(/\.Overrides\.\d+$/, '');
    if (!kept.has(config)) kept.set(config, `LaunchTemplateConfigs.${kept.size + 1}`);
  }
  return kept;
}

/**
 * Drops the failed overrides (and any launch template config left without overrides, which
 * moto would launch with no instance type) and renumbers the rest, so moto sees a well-formed
 * request.
 */
export function withoutOverrides(params: URLSearchParams, failed: ReadonlySet<string>): URLSearchParams {
  const out = new URLSearchParams();
  const rename = renamer(survivingConfigs(params, failed), failed);
  for (const [key, value] of params) {
    const renamed = rename(key);
    if (renamed !== undefined) out.append(renamed, value);
  }
  return out;
}

/** Maps an original parameter name to its renumbered name, or undefined when it is dropped. */
function renamer(
  configs: Map<string, string>,
  failed: ReadonlySet<string>,
): (key: string) => string | undefined {
  const overrides = new Map<string, string>();
  const counters = new Map<string, number>();
  return (key) => {
    const c = configKey.exec(key);
    if (c?.[1] === undefined) return key;
    const config = configs.get(c[1]);
    const o = overrideKey.exec(key);
    if (config === undefined) return undefined;
    if (o?.[1] === undefined) return `${config}.${c[2] ?? ''}`;
    if (failed.has(o[1])) return undefined;
    let prefix = overrides.get(o[1]);
    if (prefix === undefined) {
      const n = (counters.get(config) ?? 0) + 1;
      counters.set(config, n);
      prefix = `${config}.Overrides.${n}`;
      overrides.set(o[1], prefix);
    }
    return `${prefix}.${o[2] ?? ''}`;
  };
}

export const escapeXml = (s: string): string => s.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);

export function errorItem(
  o: Override,
  params: URLSearchParams,
  capacityType: string,
  code: string,
): string {
  const config = o.prefix.replace(/\.Overrides\.\d+$/, '');
  const ltId = params.get(`${config}.LaunchTemplateSpecification.LaunchTemplateId`) ?? '';
  const field = (name: string, tag: string): string => {
    const v = o.fields.get(name);
    return v === undefined ? '' : `<${tag}>${escapeXml(v)}</${tag}>`;
  };
  return (
    '<item><launchTemplateAndOverrides><launchTemplateSpecification>' +
    `<launchTemplateId>${escapeXml(ltId)}</launchTemplateId><version>1</version></launchTemplateSpecification>` +
    `<overrides>${field('InstanceType', 'instanceType')}${field('SubnetId', 'subnetId')}${field('AvailabilityZone', 'availabilityZone')}</overrides>` +
    `</launchTemplateAndOverrides><lifecycle>${escapeXml(capacityType)}</lifecycle>` +
    `<errorCode>${escapeXml(code)}</errorCode><errorMessage>We currently do not have sufficient capacity in the Availability Zone you requested (injected).</errorMessage></item>`
  );
}
