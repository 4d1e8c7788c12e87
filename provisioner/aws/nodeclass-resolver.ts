import type { EC2Client } from '@aws-sdk/client-ec2';
import type { SSMClient } from '@aws-sdk/client-ssm';
import type { NodeClassResolver } from '../../domain/cloud/cloud-provider.js';
import { isDomainError, NodeClassNotReadyError, type NodeClassPart } from '../../domain/cloud/errors.js';
import {
  defaultMetadataOptions,
  familyBlockDeviceMappings,
  type NodeClassSpec,
  type ResolvedNodeClass,
} from '../../domain/cloud/node-class.js';
import { resolvedAmiFamily } from '../../domain/api/ami-families.js';
import type { AliasParameters } from './images/ami-alias.js';
import { resolveAmis } from './images/amis.js';
import { classifyEc2Error } from './sdk/ec2-errors.js';
import type { RetryPolicy } from './sdk/retry-throttled.js';
import { resolveSecurityGroups } from './discovery/security-groups.js';
import { resolveSubnets } from './discovery/subnets.js';
import { resolvePlacementGroup } from './discovery/placement-groups.js';
import type { ResolvedPlacementGroup } from '../../domain/cloud/placement-group.js';

export interface AwsNodeClassResolverOptions {
  readonly ec2: EC2Client;
  readonly ssm: SSMClient;
  readonly retry: RetryPolicy;
  readonly aliasParameters: AliasParameters;
}

/**
 * Resolves an EC2NodeClass's selectors through Describe* calls. Each empty result is a
 * NodeClassNotReadyError naming the selector, which the NodeClass status reports as-is.
 */
export class AwsNodeClassResolver implements NodeClassResolver {
  readonly #options: AwsNodeClassResolverOptions;

  constructor(options: AwsNodeClassResolverOptions) {
    this.#options = options;
  }

  async resolve(spec: NodeClassSpec): Promise<ResolvedNodeClass> {
    try {
      return await this.#resolve(spec);
    } catch (e: unknown) {
      if (isDomainError(e)) throw e;
      throw classifyEc2Error(e, `resolving ec2nodeclass ${spec.name}`);
    }
  }

  async #resolve(spec: NodeClassSpec): Promise<ResolvedNodeClass> {
    const { ec2, ssm, retry, aliasParameters } = this.#options;
    const amiFamily = resolvedAmiFamily(spec);
    const subnets = await resolveSubnets(ec2, retry, spec.subnetSelectorTerms);
    if (subnets.length === 0) throw notReady(spec.name, 'subnets', 'no subnet matches subnetSelectorTerms');
    const securityGroups = await resolveSecurityGroups(ec2, retry, spec.securityGroupSelectorTerms);
    if (securityGroups.length === 0)
      throw notReady(spec.name, 'securityGroups', 'no security group matches securityGroupSelectorTerms');
    const amis = await resolveAmis({ ec2, ssm, retry, aliasParameters }, spec.amiSelectorTerms);
    if (amis.length === 0) throw notReady(spec.name, 'amis', 'no image matches amiSelectorTerms');
    const placementGroup = await this.#placementGroup(spec);
    if (spec.instanceProfile === '') throw notReady(spec.name, 'instanceProfile', 'no instance profile: spec.instanceProfile is empty and none was created for spec.role yet');
    return {
      name: spec.name,
      amiFamily,
      subnets,
      securityGroups,
      amis,
      amiSelectorTerms: spec.amiSelectorTerms,
      instanceProfile: spec.instanceProfile,
      blockDeviceMappings:
        spec.blockDeviceMappings !== undefined && spec.blockDeviceMappings.length > 0
          ? spec.blockDeviceMappings
          : familyBlockDeviceMappings(amiFamily),
      metadataOptions: { ...defaultMetadataOptions, ...spec.metadataOptions },
      tags: spec.tags ?? {},
      ...optionalFields(spec),
      ...(placementGroup === undefined ? {} : { placementGroup }),
    };
  }

  /**
   * The group placementGroupSelector selects, with Karpenter's PlacementGroupReady reasons when there is none:
   * PlacementGroupNotFound when EC2 lists no available group, PlacementGroupResolutionFailed when it refuses the
   * selector (an unknown name or id).
   */
  async #placementGroup(spec: NodeClassSpec): Promise<ResolvedPlacementGroup | undefined> {
    const selector = spec.placementGroupSelector;
    if (selector === undefined) return undefined;
    const lookup = await resolvePlacementGroup(this.#options.ec2, this.#options.retry, selector);
    if ('found' in lookup) return lookup.found;
    const named = selector.name ?? selector.id ?? '';
    if (lookup.missing === 'not-found') throw notReady(spec.name, 'placementGroup', `Placement group "${named}" not found`, 'PlacementGroupNotFound');
    throw notReady(spec.name, 'placementGroup', `Failed to resolve placement group "${named}": ${lookup.detail}`, 'PlacementGroupResolutionFailed');
  }
}

/** The fields a class may leave out: copied only when set (exactOptionalPropertyTypes), as given. */
const optionalKeys = [
  'userData', 'associatePublicIPAddress', 'detailedMonitoring', 'instanceStorePolicy', 'ipPrefixCount',
  'context', 'cpuOptions', 'connectionTracking', 'networkInterfaces',
] as const satisfies readonly (keyof NodeClassSpec & keyof ResolvedNodeClass)[];

function optionalFields(spec: NodeClassSpec): Partial<ResolvedNodeClass> {
  return Object.fromEntries(optionalKeys.filter((key) => spec[key] !== undefined).map((key) => [key, spec[key]]));
}

function notReady(name: string, part: NodeClassPart | undefined, why: string, reason?: string): NodeClassNotReadyError {
  return new NodeClassNotReadyError(`resolving ec2nodeclass ${name}: ${why}`, { ...(part === undefined ? {} : { part }), ...(reason === undefined ? {} : { reason }) });
}
