import type { OracleCase, OracleResult } from '../../../support/karpenter-oracle.js';

interface TemplateData {
  readonly Placement?: { readonly GroupId?: string | null; readonly PartitionNumber?: number | null };
  readonly NetworkInterfaces?: readonly { readonly InterfaceType?: string | null }[] | null;
}

const dataOf = (r: OracleResult | undefined): TemplateData[] => (r?.launchTemplates ?? []).map((lt) => lt.request.LaunchTemplateData as TemplateData);

/** The group a case's class selects, from the world's groups, and the partition its NodeClaim requires (first value). */
function expectedPlacement(c: OracleCase): { groupId: string; partition: number | null } | undefined {
  const selector = (c.nodeClass as { spec?: { placementGroupSelector?: { name?: string; id?: string } } }).spec?.placementGroupSelector;
  if (selector === undefined) return undefined;
  const group = c.placementGroups?.find((g) => g.id === selector.id || g.name === selector.name);
  if (group === undefined) return undefined;
  const requirements = (c.nodeClaim as { spec?: { requirements?: { key: string; values?: string[] }[] } }).spec?.requirements ?? [];
  const values = requirements.find((r) => r.key === 'karpenter.k8s.aws/placement-group-partition')?.values ?? [];
  const lowest = [...values].sort()[0];
  return { groupId: group.id, partition: group.strategy === 'partition' && lowest !== undefined ? Number(lowest) : null };
}

/**
 * For each case whose class selects an existing placement group: what Karpenter's templates put in Placement (every
 * template), and what the case asks for. Agreeing with them checks that nodesmith's do the same.
 */
export function placementTargets(cases: readonly OracleCase[], karpenter: readonly OracleResult[]): { name: string; sent: unknown[]; expected: unknown }[] {
  return cases.flatMap((c, i) => {
    const expected = expectedPlacement(c);
    if (expected === undefined) return [];
    const sent = dataOf(karpenter[i]).map((d) => ({ groupId: d.Placement?.GroupId ?? null, partition: d.Placement?.PartitionNumber ?? null }));
    return [{ name: c.name, sent: [...new Set(sent.map((s) => JSON.stringify(s)))].map((s) => JSON.parse(s) as unknown), expected: [expected] }];
  });
}

/** Cases whose Karpenter templates attach EFA: `efa` interfaces (the NodeClaim asked) and `efa-only` ones (the class lists them). */
export function efaCases(cases: readonly OracleCase[], karpenter: readonly OracleResult[]): { requested: string[]; listed: string[] } {
  const withType = (type: string): string[] => cases.filter((_, i) => dataOf(karpenter[i]).some((d) => (d.NetworkInterfaces ?? []).some((n) => n.InterfaceType === type))).map((c) => c.name);
  return { requested: withType('efa'), listed: withType('efa-only') };
}
