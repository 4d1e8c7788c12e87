import type { EC2NodeClass } from '../../../../domain/api/ec2nodeclass-schema.js';
import { defaultEC2NodeClass, validateEC2NodeClass } from '../../../../domain/api/ec2nodeclass-validation.js';
import type { OracleCase, OracleResult, ParsedUserData } from '../../../support/karpenter-oracle.js';
import { stripUnset, templateData, templateTags, type LaunchShape, type TemplateShape } from './launch-shape.js';
import { fleetShape } from './fleet-shape.js';
import { nodesmithLaunch, type NodesmithLaunch } from './nodesmith-launch.js';

/** nodesmith's side: refused by its admission webhook, or launched through its AWS provider. */
export function nodesmithSide(c: OracleCase, karpenter: OracleResult): Promise<NodesmithLaunch | { outcome: 'refused'; error: string }> {
  const defaulted = defaultEC2NodeClass(structuredClone(c.nodeClass)) as EC2NodeClass;
  const problems = validateEC2NodeClass(defaulted);
  if (problems.length > 0) return Promise.resolve({ outcome: 'refused', error: problems.map((p) => `${p.path}: ${p.message}`).join('; ') });
  // A class Karpenter refused resolved no images: nodesmith's side then sees an EC2 that holds none.
  return nodesmithLaunch({ ...c, nodeClass: defaulted }, karpenter.images ?? []);
}

type Parse = (userData: string) => ParsedUserData;

/** nodeadm's verdict in a comparable form: `valid`, or the error it stopped with. */
export function verdict(p: ParsedUserData): string | undefined {
  if (p.nodeadm === undefined) return undefined;
  if (p.nodeadm.valid) return 'valid';
  const error = /"error":"([^"]*)"/.exec(p.nodeadm.output)?.[1];
  return `rejected: ${error ?? p.nodeadm.output.slice(-200)}`;
}

/**
 * A kubelet flag whose value is a map (`--kube-reserved="cpu=200m,memory=200Mi"`, `--eviction-hard="memory.available<5%,…"`)
 * with its entries sorted. Karpenter's Windows and AL2 bootstraps join such maps in Go's map order, which is random
 * from run to run; the kubelet reads every order alike, so the order is not a difference.
 */
export function sortedFlagMaps(text: string): string {
  return text.replace(/(--[a-z-]+=")([^"]*[=<][^"]*)"/g, (_all, flag: string, entries: string) => `${flag}${entries.split(',').sort().join(',')}"`);
}

type Part = NonNullable<ParsedUserData['parts']>[number];

/**
 * A MIME part as compared: its NodeConfigs as nodeadm's API types decoded them (a typed decode normalises what YAML
 * spells many ways); where nodeadm's decoder refused one, the YAML objects and its errors instead.
 */
function comparablePart(part: Part): Part {
  const { nodeConfigs, decoded, decodeErrors, ...rest } = part;
  if (nodeConfigs === undefined) return rest;
  const configs = decodeErrors === undefined && decoded !== undefined ? decoded : nodeConfigs;
  return { ...rest, nodeConfigs: configs.map((c) => (stripUnset(c) ?? {}) as Record<string, unknown>), ...(decodeErrors === undefined ? {} : { decodeErrors }) };
}

/**
 * The parsed user data with nodeadm's verdict, and with empty sections dropped: Go writes `metadata: {}` and
 * `containerd: {}` for structs left unset, which nodeadm reads as absent. Bottlerocket TOML is compared as Karpenter's
 * settings struct decoded it (its unset fields dropped), or as its settings and the keys the struct refused.
 */
function comparable(p: ParsedUserData): TemplateShape['userData'] {
  const settings = p.bottlerocket === undefined ? (p.settings === undefined ? {} : { settings: p.settings }) : { settings: (stripUnset(p.bottlerocket) ?? {}) as Record<string, unknown> };
  const rest: Omit<ParsedUserData, 'nodeadm' | 'parts'> = {
    format: p.format, ...settings, ...(p.bottlerocketError === undefined ? {} : { bottlerocketError: p.bottlerocketError }),
    ...(p.text === undefined ? {} : { text: sortedFlagMaps(p.text) }), ...(p.error === undefined ? {} : { error: p.error }),
  };
  const checked = verdict(p);
  const withVerdict = checked === undefined ? rest : { ...rest, nodeadm: checked };
  return p.parts === undefined ? withVerdict : { ...withVerdict, parts: p.parts.map(comparablePart) };
}

export function karpenterShape(r: OracleResult, parse: Parse): LaunchShape {
  if (r.error !== undefined) return { outcome: 'failed', why: r.error, types: {} };
  if (r.refused !== undefined) return { outcome: 'refused', why: r.refused, types: {} };
  const types: Record<string, TemplateShape> = {};
  for (const lt of r.launchTemplates) {
    const shape: TemplateShape = {
      imageId: lt.imageId,
      userData: comparable(parse(lt.userData)),
      data: templateData(lt.request.LaunchTemplateData),
      templateTags: templateTags(lt.request.TagSpecifications),
    };
    for (const t of lt.instanceTypes) types[t] = shape;
  }
  return { outcome: 'launched', types, ...(r.fleet === undefined ? {} : { fleet: fleetShape(r.fleet) }) };
}

export function decodeUserData(base64: string | undefined): string {
  return Buffer.from(base64 ?? '', 'base64').toString('utf8');
}

export function nodesmithShape(n: NodesmithLaunch | { outcome: 'refused'; error: string }, parse: Parse): LaunchShape {
  if (n.outcome !== 'launched') return { outcome: n.outcome, why: n.error, types: {} };
  const types: Record<string, TemplateShape> = {};
  for (const lt of n.templates) {
    const data = lt.request.LaunchTemplateData ?? {};
    const shape: TemplateShape = {
      imageId: data.ImageId ?? '',
      userData: comparable(parse(decodeUserData(data.UserData))),
      data: templateData(data as Record<string, unknown>),
      templateTags: templateTags(lt.request.TagSpecifications),
    };
    for (const t of lt.instanceTypes) types[t] = shape;
  }
  return { outcome: 'launched', types, ...(n.fleet === undefined ? {} : { fleet: fleetShape(n.fleet) }) };
}
