import type { IncomingHttpHeaders } from 'node:http';
import {
  DescribeLaunchTemplateVersionsCommand,
  EC2Client,
  ModifyInstanceAttributeCommand,
  type ResponseLaunchTemplateData,
} from '@aws-sdk/client-ec2';

/** One `fleetInstanceSet` item of a CreateFleet reply: the instances one launch template version launched. */
export interface FleetLaunch {
  readonly templateId: string;
  readonly version: string;
  readonly instanceIds: readonly string[];
}

/** The bodies of the `<item>` elements directly inside `xml` (items nest: instanceIds is a set of items too). */
export function topLevelItems(xml: string): string[] {
  const items: string[] = [];
  let depth = 0;
  let start = 0;
  for (const m of xml.matchAll(/<(\/?)item>/g)) {
    if (m[1] === '') {
      if (depth === 0) start = m.index + m[0].length;
      depth += 1;
    } else {
      depth -= 1;
      if (depth === 0) items.push(xml.slice(start, m.index));
    }
  }
  return items;
}

/** What each launch template version launched, read from a CreateFleet reply (errors are not in fleetInstanceSet). */
export function fleetLaunches(xml: string): FleetLaunch[] {
  const set = /<fleetInstanceSet>([\s\S]*)<\/fleetInstanceSet>/.exec(xml)?.[1] ?? '';
  return topLevelItems(set).flatMap((item) => {
    const templateId = /<launchTemplateId>([^<]+)<\/launchTemplateId>/.exec(item)?.[1];
    const version = /<launchTemplateSpecification>[\s\S]*?<version>([^<]+)<\/version>/.exec(item)?.[1];
    const ids = /<instanceIds>([\s\S]*?)<\/instanceIds>/.exec(item)?.[1] ?? '';
    const instanceIds = [...ids.matchAll(/<item>([^<]+)<\/item>/g)].flatMap((m) => (m[1] === undefined ? [] : [m[1]]));
    return templateId === undefined || instanceIds.length === 0 ? [] : [{ templateId, version: version ?? '$Default', instanceIds }];
  });
}

/**
 * The security groups EC2 gives an instance launched from this template data: `SecurityGroupIds`, or the groups of
 * the primary network interface when the template describes interfaces instead. Empty when it names none (EC2 then
 * uses the VPC's default group, which is also what moto does).
 */
export function templateGroupIds(data: ResponseLaunchTemplateData | undefined): string[] {
  const primary = data?.NetworkInterfaces?.find((n) => (n.DeviceIndex ?? 0) === 0);
  return [...(data?.SecurityGroupIds ?? []), ...(primary?.Groups ?? [])];
}

/** The region and access key of a SigV4 request: moto keys its backends (account, region) on them. */
function signingScope(headers: IncomingHttpHeaders): { region: string; accessKeyId: string } | undefined {
  const m = /Credential=([^/]+)\/\d{8}\/([^/]+)\//.exec(headers.authorization ?? '');
  return m?.[1] === undefined || m[2] === undefined ? undefined : { accessKeyId: m[1], region: m[2] };
}

/**
 * moto launches fleet instances without the launch template's security groups (docs/moto-differences.md): an
 * on-demand instance gets none, a spot one the default group. EC2 gives them the template's. This applies the
 * template's groups to the instances the reply names, with moto's own ModifyInstanceAttribute, before the reply
 * reaches the client: what nodesmith then describes is what EC2 would show, and nothing is rewritten on the way out.
 */
export class TemplateGroups {
  readonly #target: string;
  /** A launch template version never changes, so its groups are read once. */
  readonly #byVersion = new Map<string, Promise<string[]>>();

  constructor(target: string) {
    this.#target = target;
  }

  async apply(headers: IncomingHttpHeaders, reply: string): Promise<void> {
    const launches = fleetLaunches(reply);
    const scope = signingScope(headers);
    if (launches.length === 0 || scope === undefined) return;
    const ec2 = new EC2Client({ endpoint: this.#target, region: scope.region, credentials: { accessKeyId: scope.accessKeyId, secretAccessKey: 'unchecked' }, maxAttempts: 1 });
    try {
      for (const launch of launches) {
        const groups = await this.#groups(ec2, scope.region, launch);
        if (groups.length === 0) continue;
        for (const InstanceId of launch.instanceIds) await ec2.send(new ModifyInstanceAttributeCommand({ InstanceId, Groups: groups }));
      }
    } finally {
      ec2.destroy();
    }
  }

  #groups(ec2: EC2Client, region: string, launch: FleetLaunch): Promise<string[]> {
    const key = `${region}/${launch.templateId}/${launch.version}`;
    let groups = this.#byVersion.get(key);
    if (groups === undefined) {
      groups = ec2
        .send(new DescribeLaunchTemplateVersionsCommand({ LaunchTemplateId: launch.templateId, Versions: [launch.version] }))
        .then((r) => templateGroupIds(r.LaunchTemplateVersions?.[0]?.LaunchTemplateData));
      // `$Latest` moves, and a failed read must be retried: keep only numbered versions that were read.
      if (/^\d+$/.test(launch.version)) {
        this.#byVersion.set(key, groups);
        groups.catch(() => this.#byVersion.delete(key));
      }
    }
    return groups;
  }
}
