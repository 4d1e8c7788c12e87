import type { EC2NodeClassSpec } from './ec2nodeclass-schema.js';
import { restrictedTagKeys, restrictedTagPrefix } from './schema-values.js';
import { fieldPath, problem, type Problem } from './problem.js';

/** amiFamily is required without an alias; with one it must match the alias family or be Custom. */
export function checkAmiFamily(spec: EC2NodeClassSpec): Problem[] {
  const alias = spec.amiSelectorTerms.find((t) => t.alias !== undefined)?.alias;
  if (alias === undefined) {
    return spec.amiFamily === undefined
      ? [problem('spec.amiFamily', 'ami-family-required', undefined, 'amiFamily must be specified if amiSelectorTerms does not contain an alias')]
      : [];
  }
  const family = alias.split('@')[0] ?? '';
  if (spec.amiFamily === undefined || spec.amiFamily === 'Custom' || spec.amiFamily.toLowerCase() === family) return [];
  return [problem('spec.amiFamily', 'ami-family-alias', spec.amiFamily, `amiFamily must match the alias family "${family}" or be 'Custom'`)];
}

/** Exactly one of role and instanceProfile; and no switching between the two on update. */
export function checkRoleAndProfile(spec: EC2NodeClassSpec, old: EC2NodeClassSpec | undefined): Problem[] {
  const out: Problem[] = [];
  const hasRole = spec.role !== undefined;
  const hasProfile = spec.instanceProfile !== undefined;
  if (hasRole === hasProfile) {
    out.push(problem('spec', 'role-xor-instance-profile', { role: spec.role, instanceProfile: spec.instanceProfile }, "must specify exactly one of ['role', 'instanceProfile']"));
  }
  if (spec.role === '') out.push(problem('spec.role', 'non-empty', '', 'role cannot be empty'));
  if (spec.instanceProfile === '') out.push(problem('spec.instanceProfile', 'non-empty', '', 'instanceProfile cannot be empty'));
  if (old === undefined) return out;
  if ((old.role !== undefined && !hasRole) || (old.instanceProfile !== undefined && !hasProfile)) {
    out.push(problem('spec', 'role-profile-switch', undefined, "changing from 'role' to 'instanceProfile' or back is not supported; create a new EC2NodeClass"));
  }
  return out;
}

/** User tags may not be empty or override the tags the provisioner owns. */
export function checkTags(tags: Readonly<Record<string, string>> | undefined): Problem[] {
  const out: Problem[] = [];
  for (const key of Object.keys(tags ?? {})) {
    const path = fieldPath('spec.tags', key);
    if (key === '') out.push(problem(path, 'tag-key-empty', key, "empty tag keys aren't supported"));
    if (restrictedTagKeys.includes(key) || key.startsWith(restrictedTagPrefix)) {
      out.push(problem(path, 'tag-restricted', key, `tag "${key}" is restricted: the provisioner sets it on every instance`));
    }
  }
  return out;
}
