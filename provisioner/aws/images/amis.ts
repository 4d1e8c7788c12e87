import type { EC2Client, Filter, Image } from '@aws-sdk/client-ec2';
import { DescribeImagesCommand, GetParameterCommand } from '../sdk/sdk.js';
import type { SSMClient } from '@aws-sdk/client-ssm';
import type { AmiSelectorTerm, AmiVariant, ResolvedAmi } from '../../../domain/cloud/node-class.js';
import { isThrottledError, NodeClassNotReadyError } from '../../../domain/cloud/errors.js';
import { parseAlias, toArchitecture, type AliasParameters } from './ami-alias.js';
import { retryThrottled, type RetryPolicy } from '../sdk/retry-throttled.js';
import { termFilters, uniqueById } from '../sdk/selector-filters.js';

export interface AmiResolverDeps {
  readonly ec2: EC2Client;
  readonly ssm: SSMClient;
  readonly retry: RetryPolicy;
  readonly aliasParameters: AliasParameters;
}

/** Images of an alias carry the variants their parameter named; other images serve any type. */
type VariantsById = ReadonlyMap<string, readonly AmiVariant[]>;

/**
 * Resolves AMI selector terms to the newest image per architecture and variant, newest first
 * (Karpenter's order: a launch gives each instance type the first image that fits it).
 */
export async function resolveAmis(
  deps: AmiResolverDeps,
  terms: readonly AmiSelectorTerm[],
): Promise<ResolvedAmi[]> {
  const images: Image[] = [];
  const variants = new Map<string, readonly AmiVariant[]>();
  for (const term of terms) images.push(...(await imagesForTerm(deps, term, variants)));
  const newest = new Map<string, ResolvedAmi>();
  for (const image of uniqueById(images, (i) => i.ImageId)) {
    for (const ami of toResolved(image, variants)) {
      const key = `${ami.architecture}/${ami.variant ?? ''}`;
      const current = newest.get(key);
      if (current === undefined || newestFirst(ami, current) < 0) newest.set(key, ami);
    }
  }
  return [...newest.values()].sort(newestFirst);
}

function newestFirst(a: ResolvedAmi, b: ResolvedAmi): number {
  const byDate = (b.creationDate ?? '').localeCompare(a.creationDate ?? '');
  return byDate !== 0 ? byDate : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

async function imagesForTerm(
  deps: AmiResolverDeps,
  term: AmiSelectorTerm,
  variants: Map<string, readonly AmiVariant[]>,
): Promise<Image[]> {
  if (term.alias !== undefined) {
    const found = await aliasImageIds(deps, term.alias);
    for (const [id, v] of found) variants.set(id, v);
    return imagesForIds(deps, [...found.keys()]);
  }
  if (term.ssmParameter !== undefined) {
    return imagesForIds(deps, [await readParameter(deps, term.ssmParameter)]);
  }
  const filters: Filter[] = [
    ...termFilters(term, { id: 'image-id', name: 'name' }),
    { Name: 'state', Values: ['available'] },
  ];
  // Like Karpenter: without an owner or id, only our own and Amazon's images qualify, so a
  // name selector cannot pick up a look-alike community image.
  const owners =
    term.owner !== undefined
      ? [term.owner]
      : term.id !== undefined
        ? undefined
        : ['self', 'amazon'];
  return describeImages(deps, filters, owners);
}

/** Image id → the variants it serves, from every parameter of the alias that exists. */
async function aliasImageIds(deps: AmiResolverDeps, alias: string): Promise<VariantsById> {
  const parsed = parseAlias(alias);
  if (parsed === undefined)
    throw new NodeClassNotReadyError(`resolving ami alias ${alias}: malformed`, { part: 'amis' });
  const ids = new Map<string, AmiVariant[]>();
  for (const parameter of deps.aliasParameters(parsed)) {
    const id = await readParameter(deps, parameter.name).catch((e: unknown) => {
      // A region may lack a variant or an architecture (no arm64 Neuron build); the rest resolve.
      if (e instanceof NodeClassNotReadyError) return undefined;
      throw e;
    });
    if (id === undefined) continue;
    const known = ids.get(id) ?? [];
    // Windows parameters name no variant: an empty list stands for "any type".
    ids.set(id, [...known, ...(parameter.variants ?? [])]);
  }
  if (ids.size === 0)
    throw new NodeClassNotReadyError(`resolving ami alias ${alias}: no image found for any of its parameters`, { part: 'amis' });
  return ids;
}

async function readParameter(deps: AmiResolverDeps, name: string): Promise<string> {
  try {
    const out = await retryThrottled(deps.retry, 'reading ssm parameter', () =>
      deps.ssm.send(new GetParameterCommand({ Name: name })),
    );
    const value = out.Parameter?.Value;
    if (value === undefined) throw new Error('empty value');
    return value;
  } catch (e: unknown) {
    if (isThrottledError(e)) throw e;
    throw new NodeClassNotReadyError(
      `reading ssm parameter ${name}: ${e instanceof Error ? e.message : String(e)}`,
      { cause: e, part: 'amis' },
    );
  }
}

async function imagesForIds(deps: AmiResolverDeps, ids: readonly string[]): Promise<Image[]> {
  if (ids.length === 0) return [];
  return describeImages(deps, [{ Name: 'image-id', Values: [...ids] }], undefined);
}

async function describeImages(
  deps: AmiResolverDeps,
  Filters: Filter[],
  Owners: string[] | undefined,
): Promise<Image[]> {
  const out = await retryThrottled(deps.retry, 'describing images', () =>
    deps.ec2.send(
      new DescribeImagesCommand({ Filters, ...(Owners === undefined ? {} : { Owners }) }),
    ),
  );
  return out.Images ?? [];
}

/** One entry per variant the image serves (Karpenter keeps one image per requirement set). */
function toResolved(image: Image, variants: VariantsById): ResolvedAmi[] {
  const architecture = toArchitecture(image.Architecture);
  if (image.ImageId === undefined || architecture === undefined) return [];
  const base = {
    id: image.ImageId,
    name: image.Name ?? '',
    architecture,
    ...(image.CreationDate === undefined ? {} : { creationDate: image.CreationDate }),
  };
  const served = variants.get(image.ImageId) ?? [];
  return served.length === 0 ? [base] : [...new Set(served)].map((variant) => ({ ...base, variant }));
}
