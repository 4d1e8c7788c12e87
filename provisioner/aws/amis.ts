import type { EC2Client, Filter, Image } from '@aws-sdk/client-ec2';
import { DescribeImagesCommand, GetParameterCommand } from './sdk.js';
import type { SSMClient } from '@aws-sdk/client-ssm';
import type { AmiSelectorTerm, ResolvedAmi } from '../../domain/cloud/node-class.js';
import type { Architecture } from '../../domain/cloud/offering.js';
import { isThrottledError, NodeClassNotReadyError } from '../../domain/cloud/errors.js';
import { parseAlias, toArchitecture, type AliasParameterName } from './ami-alias.js';
import { retryThrottled, type RetryPolicy } from './retry-throttled.js';
import { termFilters, uniqueById } from './selector-filters.js';

export interface AmiResolverDeps {
  readonly ec2: EC2Client;
  readonly ssm: SSMClient;
  readonly retry: RetryPolicy;
  readonly aliasParameterName: AliasParameterName;
}

const architectures: readonly Architecture[] = ['amd64', 'arm64'];

/** Resolves AMI selector terms to at most one image per architecture: the newest match. */
export async function resolveAmis(
  deps: AmiResolverDeps,
  terms: readonly AmiSelectorTerm[],
): Promise<ResolvedAmi[]> {
  const images: Image[] = [];
  for (const term of terms) images.push(...(await imagesForTerm(deps, term)));
  const newest = new Map<Architecture, ResolvedAmi>();
  for (const image of uniqueById(images, (i) => i.ImageId)) {
    const ami = toResolved(image);
    if (ami === undefined) continue;
    const current = newest.get(ami.architecture);
    if (current === undefined || (ami.creationDate ?? '') > (current.creationDate ?? '')) {
      newest.set(ami.architecture, ami);
    }
  }
  return architectures.flatMap((a) => newest.get(a) ?? []);
}

async function imagesForTerm(deps: AmiResolverDeps, term: AmiSelectorTerm): Promise<Image[]> {
  if (term.alias !== undefined) return imagesForIds(deps, await aliasImageIds(deps, term.alias));
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

async function aliasImageIds(deps: AmiResolverDeps, alias: string): Promise<string[]> {
  const parsed = parseAlias(alias);
  if (parsed === undefined)
    throw new NodeClassNotReadyError(`resolving ami alias ${alias}: malformed`, { part: 'amis' });
  const ids: string[] = [];
  for (const arch of architectures) {
    const name = deps.aliasParameterName(parsed, arch);
    if (name === undefined)
      throw new NodeClassNotReadyError(`resolving ami alias ${alias}: unsupported family`, { part: 'amis' });
    const id = await readParameter(deps, name).catch((e: unknown) => {
      // An alias may lack one architecture (e.g. no arm64 build); the other still resolves.
      if (e instanceof NodeClassNotReadyError) return undefined;
      throw e;
    });
    if (id !== undefined) ids.push(id);
  }
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

function toResolved(image: Image): ResolvedAmi | undefined {
  const architecture = toArchitecture(image.Architecture);
  if (image.ImageId === undefined || architecture === undefined) return undefined;
  return {
    id: image.ImageId,
    name: image.Name ?? '',
    architecture,
    ...(image.CreationDate === undefined ? {} : { creationDate: image.CreationDate }),
  };
}
