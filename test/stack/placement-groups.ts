import { escapeXml } from './fleet-overrides.js';
import type { Answer } from './create-fleet.js';

/** A placement group the proxy's EC2 holds (moto 5.2.5 has no placement group API: docs/moto-differences.md). */
export interface ProxyPlacementGroup {
  readonly id: string;
  readonly name: string;
  readonly strategy: 'cluster' | 'partition' | 'spread';
  readonly partitionCount?: number;
  readonly state?: 'pending' | 'available' | 'deleting' | 'deleted';
}

/** The Query list `Prefix.1`, `Prefix.2`… as EC2 reads it. */
function listParam(params: URLSearchParams, prefix: string): string[] {
  return [...params.keys()].filter((k) => new RegExp(`^${prefix}\\.\\d+$`).test(k)).map((k) => params.get(k) ?? '');
}

/** The values of the `state` filter, if the request has one (Karpenter's and nodesmith's always do). */
function stateFilter(params: URLSearchParams): string[] | undefined {
  for (let i = 1; params.has(`Filter.${String(i)}.Name`); i++) {
    if (params.get(`Filter.${String(i)}.Name`) === 'state') return listParam(params, `Filter\\.${String(i)}\\.Value`);
  }
  return undefined;
}

function unknownGroup(code: string, what: string): Answer {
  const text = `<?xml version="1.0" encoding="UTF-8"?>\n<Response><Errors><Error><Code>${code}</Code><Message>The Placement Group ${escapeXml(what)} is unknown (answered by the fault proxy, as EC2).</Message></Error></Errors><RequestID>fault-proxy</RequestID></Response>`;
  return { status: 400, type: 'text/xml', text };
}

function item(g: ProxyPlacementGroup): string {
  const partitions = g.partitionCount === undefined ? '' : `<partitionCount>${String(g.partitionCount)}</partitionCount>`;
  return `<item><groupName>${escapeXml(g.name)}</groupName><groupId>${escapeXml(g.id)}</groupId><strategy>${g.strategy}</strategy>${partitions}<state>${g.state ?? 'available'}</state></item>`;
}

/**
 * DescribePlacementGroups as EC2 answers it: the named groups (an unknown name or id is an error, as EC2 refuses it:
 * `InvalidPlacementGroup.Unknown`, `InvalidPlacementGroupId.NotFound`), else all, narrowed by the `state` filter.
 */
export function describePlacementGroups(groups: readonly ProxyPlacementGroup[], params: URLSearchParams): Answer {
  const names = listParam(params, 'GroupName');
  const ids = listParam(params, 'GroupId');
  const missingName = names.find((n) => !groups.some((g) => g.name === n));
  if (missingName !== undefined) return unknownGroup('InvalidPlacementGroup.Unknown', missingName);
  const missingId = ids.find((id) => !groups.some((g) => g.id === id));
  if (missingId !== undefined) return unknownGroup('InvalidPlacementGroupId.NotFound', missingId);
  const states = stateFilter(params);
  const found = groups.filter((g) => (names.length === 0 || names.includes(g.name)) && (ids.length === 0 || ids.includes(g.id)) && (states === undefined || states.includes(g.state ?? 'available')));
  const text = `<?xml version="1.0" encoding="UTF-8"?>\n<DescribePlacementGroupsResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/"><requestId>fault-proxy</requestId><placementGroupSet>${found.map(item).join('')}</placementGroupSet></DescribePlacementGroupsResponse>`;
  return { status: 200, type: 'text/xml', text };
}
