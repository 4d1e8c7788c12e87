import t, { type Test } from 'tap';
import { fileURLToPath } from 'node:url';
import { karpenterBuild, parseUserData, runOracle, type OracleCase, type OracleResult, type ParsedUserData } from '../../support/karpenter-oracle.js';
import { corpus } from './launch-differential/corpus.js';
import { classify, readKnownDifferences } from './launch-differential/known-differences.js';
import { diffShapes, type Difference } from './launch-differential/launch-shape.js';
import { decodeUserData, karpenterShape, nodesmithShape, nodesmithSide, verdict } from './launch-differential/shapes.js';
import { efaCases, placementTargets } from './launch-differential/exercised.js';

const differencesDoc = fileURLToPath(new URL('../../../docs/launch-differences.md', import.meta.url));

function show(v: unknown): string {
  return (v === undefined ? 'undefined' : JSON.stringify(v)).slice(0, 300);
}

function sample(diffs: readonly Difference[], n = 3): string {
  return diffs.slice(0, n).map((d) => `  ${d.caseName} ${d.path}\n    karpenter: ${show(d.karpenter)}\n    nodesmith: ${show(d.nodesmith)}`).join('\n');
}

interface TemplateData {
  readonly CapacityReservationSpecification?: { readonly CapacityReservationTarget?: { readonly CapacityReservationId?: string } };
  readonly InstanceMarketOptions?: { readonly MarketType?: string };
}

/** For each reserved case: the reservation and market type Karpenter's first template sent, and what the case asks for. */
function reservedTargets(cases: readonly OracleCase[], karpenter: readonly OracleResult[]): { name: string; karpenterSent: unknown[]; expected: unknown[] }[] {
  return cases.flatMap((c, i) => {
    if (c.reservation === undefined) return [];
    const data = karpenter[i]?.launchTemplates[0]?.request.LaunchTemplateData as TemplateData | undefined;
    const market = c.reservation.type === 'capacity-block' ? 'capacity-block' : c.reservation.interruptible ? 'interruptible-capacity-reservation' : undefined;
    return [{ name: c.name, karpenterSent: [data?.CapacityReservationSpecification?.CapacityReservationTarget?.CapacityReservationId, data?.InstanceMarketOptions?.MarketType], expected: [c.reservation.id, market] }];
  });
}

/**
 * The parsed structures compared are nodeadm's API types' and Karpenter's Bottlerocket settings struct's: every
 * document of both sides went through them (a refusal on one side only is a difference like any other).
 */
function checkTypedParsing(t: Test, list: readonly string[], nodesmithTexts: ReadonlySet<string>, parse: (text: string) => ParsedUserData): void {
  const nodeConfigParts = list.flatMap((text) => (parse(text).parts ?? []).filter((p) => p.nodeConfigs !== undefined).map((p) => ({ text, p })));
  const decodedOnBoth = { karpenter: nodeConfigParts.filter(({ text }) => !nodesmithTexts.has(text)).length, nodesmith: nodeConfigParts.filter(({ text }) => nodesmithTexts.has(text)).length };
  t.ok(decodedOnBoth.karpenter > 0 && decodedOnBoth.nodesmith > 0, `NodeConfig parts of both sides decoded by nodeadm's API types (${JSON.stringify(decodedOnBoth)})`);
  t.same(nodeConfigParts.filter(({ p }) => p.decodeErrors !== undefined).map(({ p }) => p.decodeErrors), [], "nodeadm's strict decoder reads every NodeConfig of both sides");
  const toml = list.filter((text) => parse(text).format === 'toml');
  t.ok(toml.some((text) => nodesmithTexts.has(text)) && toml.some((text) => !nodesmithTexts.has(text)), `Bottlerocket documents of both sides (${String(toml.length)})`);
  t.same(toml.filter((text) => parse(text).bottlerocket === undefined && parse(text).bottlerocketError === undefined), [], "each was decoded into Karpenter's BottlerocketSettings, or its unknown keys named");
}

void t.test('nodesmith launches every EC2NodeClass as Karpenter does, or differs only as docs/launch-differences.md says', async (t) => {
  const build = await karpenterBuild();
  const cases = corpus(build.examplesDir);
  t.equal(cases.filter((c) => c.name.startsWith('example/')).length, 22, "all 22 EC2NodeClasses of Karpenter's examples/v1 are cases");
  t.ok(cases.length >= 200, `at least 200 cases (${String(cases.length)})`);

  const karpenter = await runOracle(build, cases);
  const nodesmith = await Promise.all(cases.map((c, i) => nodesmithSide(c, karpenter[i] ?? (() => { throw new Error(`no oracle result for ${c.name}`); })())));

  // Every user data of both sides, parsed by one parser (and nodeadm's, for MIME documents).
  const texts = new Set<string>();
  for (const r of karpenter) for (const lt of r.launchTemplates) texts.add(lt.userData);
  for (const n of nodesmith) if (n.outcome === 'launched') for (const lt of n.templates) texts.add(decodeUserData(lt.request.LaunchTemplateData?.UserData));
  const list = [...texts];
  const parsed = new Map<string, ParsedUserData>();
  (await parseUserData(build, list, true)).forEach((p, i) => parsed.set(list[i] ?? '', p));
  const parse = (text: string): ParsedUserData => parsed.get(text) ?? { format: 'text', error: 'not parsed' };

  const diffs = cases.flatMap((c, i) => {
    const k = karpenter[i];
    const n = nodesmith[i];
    return k === undefined || n === undefined ? [] : diffShapes(c.name, karpenterShape(k, parse), nodesmithShape(n, parse));
  });
  const known = readKnownDifferences(differencesDoc);
  const { explained, unexplained } = classify(known, diffs);

  const byPath = new Map<string, Difference[]>();
  for (const d of unexplained) byPath.set(d.path, [...(byPath.get(d.path) ?? []), d]);
  t.same([...byPath.keys()], [], `every difference is listed in docs/launch-differences.md; unlisted:\n${[...byPath].map(([p, ds]) => `${p} (${String(ds.length)} cases)\n${sample(ds)}`).join('\n')}`);
  const stale = [...explained].filter(([, ds]) => ds.length === 0).map(([id]) => id);
  t.same(stale, [], 'every listed difference still occurs (remove the rows of those that were fixed)');
  for (const [id, ds] of explained) t.comment(`${id}: ${String(new Set(ds.map((d) => d.caseName)).size)} cases, ${String(ds.length)} differences`);

  // The reserved cases exercise what they should: Karpenter's templates target the reservation (and a capacity
  // block's market type), so agreeing with them checks nodesmith's reserved launch.
  const targets = reservedTargets(cases, karpenter);
  t.ok(targets.length >= 9, `reserved launches are cases (${String(targets.length)})`);
  for (const { name, karpenterSent, expected } of targets) t.same(karpenterSent, expected, `${name}: Karpenter targets the reservation`);

  // The placement group and EFA cases exercise what they should: Karpenter's templates name the group (and the
  // partition the NodeClaim requires) and attach EFA interfaces, so agreeing with them checks nodesmith's.
  const placements = placementTargets(cases, karpenter);
  t.ok(placements.length >= 28, `placement group launches are cases (${String(placements.length)})`);
  for (const { name, sent, expected } of placements) t.same(sent, expected, `${name}: Karpenter's templates go into the group`);
  const efa = efaCases(cases, karpenter);
  t.ok(efa.requested.length >= 8, `launches attaching EFA for a NodeClaim that asks for it are cases (${String(efa.requested.length)})`);
  t.ok(efa.listed.length >= 20, `launches with the class's EFA-only interfaces are cases (${String(efa.listed.length)})`);

  // Most cases launch on both sides, so the comparison above is of launches rather than of refusals.
  const launchedOnBoth = cases.filter((_, i) => karpenter[i]?.fleet !== undefined && karpenter[i].error === undefined && nodesmith[i]?.outcome === 'launched');
  t.ok(launchedOnBoth.length >= 200, `at least 200 cases launch on both sides, CreateFleet included (${String(launchedOnBoth.length)} of ${String(cases.length)})`);
  const withoutFleet = cases.filter((_, i) => { const n = nodesmith[i]; return n?.outcome === 'launched' && n.fleet === undefined; }).map((c) => c.name);
  t.same(withoutFleet, [], 'every launch of nodesmith sent CreateFleet');

  // nodeadm's verdicts are part of each side's user data above, so a document nodeadm rejects on one
  // side only is a difference like any other. These check the checker itself.
  const nodesmithTexts = new Set(nodesmith.flatMap((n) => (n.outcome === 'launched' ? n.templates.map((lt) => decodeUserData(lt.request.LaunchTemplateData?.UserData)) : [])));
  const withNodeConfig = (text: string): boolean => parse(text).parts?.some((p) => p.nodeConfigs !== undefined) === true;
  const checkedByNodeadm = list.filter((text) => nodesmithTexts.has(text) && verdict(parse(text)) === 'valid');
  t.ok(checkedByNodeadm.length > 0, `nodeadm parsed and accepted nodesmith user data (${String(checkedByNodeadm.length)} documents)`);
  const karpenterRejected = list.filter((text) => !nodesmithTexts.has(text) && withNodeConfig(text) && verdict(parse(text)) !== 'valid');
  t.same(karpenterRejected.map((text) => verdict(parse(text))), [], "nodeadm accepts every AL2023 user data of Karpenter's (it reads what nodes read)");

  checkTypedParsing(t, list, nodesmithTexts, parse);
});
