import t from 'tap';
import { FakeClock } from '../../../domain/clock.js';
import { entryLabels, type CatalogEntry, type DescribedInstanceTypes } from '../../../domain/instance-types/catalog-entry.js';
import { buildInstanceTypes, embeddedEntries, liveCatalog } from '../../../domain/instance-types/catalog.js';
import { createAwsProvider } from '../../../provisioner/aws/aws-provider.js';
import { CatalogRefresh } from '../../../provisioner/pricing/catalog-refresh.js';
import { startMoto } from '../moto.js';

/**
 * Where moto 5.2.5's copy of EC2's data (taken 2026-10) disagrees with Karpenter's generated docs of 2026-07 that the
 * snapshot was made from: EC2 changed these figures in between. The mapping is not at fault; the label follows EC2.
 */
const ec2DataNewerThanSnapshot: Readonly<Record<string, readonly string[]>> = {
  'karpenter.k8s.aws/instance-cpu-sustained-clock-speed-mhz': ['c9g', 'c9gd', 'i7i', 'i7ie', 'm9g', 'm9gd'],
};

function labelDifferences(described: readonly CatalogEntry[], region: string): { compared: number; differences: Map<string, Set<string>> } {
  const differences = new Map<string, Set<string>>();
  let compared = 0;
  for (const entry of described) {
    const known = embeddedEntries.get(entry.name);
    if (known === undefined) continue;
    compared++;
    const fromEc2 = entryLabels(entry, region);
    const fromSnapshot = entryLabels(known, region);
    for (const key of new Set([...Object.keys(fromEc2), ...Object.keys(fromSnapshot)])) {
      if (fromEc2[key] === fromSnapshot[key]) continue;
      differences.set(key, (differences.get(key) ?? new Set()).add(entry.family));
    }
  }
  return { compared, differences };
}

void t.test('instance types as moto describes them (EC2 data), next to the embedded catalog', async (t) => {
  const moto = await startMoto();
  t.teardown(() => moto.stop());
  t.teardown(() => {
    if (!t.passing()) t.comment(moto.tail());
  });
  const aws = createAwsProvider({
    region: moto.region, endpoint: moto.endpoint, credentials: moto.credentials, clock: new FakeClock(), kubernetesVersion: '1.33',
    cluster: { name: 'moto-catalog', endpoint: 'https://127.0.0.1:6443', certificateAuthority: 'Q0E=', serviceCidr: '10.96.0.0/12' },
    retry: { maxAttempts: 1 },
  });
  t.teardown(() => {
    aws.close();
  });
  const described: DescribedInstanceTypes = await aws.instanceTypes.describe();

  await t.test('every page is read: the region\'s types, each with the zones its offerings list', (t) => {
    t.ok(described.entries.length > 1000, `${String(described.entries.length)} types`);
    t.equal(new Set(described.entries.map((e) => e.name)).size, described.entries.length, 'no type twice across pages');
    const zones = described.zonesByType.get('m5.large') ?? [];
    t.ok(zones.length >= 3 && zones.every((z) => z.startsWith(moto.region)), `m5.large in ${zones.join(', ')}`);
    t.notOk(described.entries.some((e) => e.name.startsWith('mac')), 'mac types are not x86_64 or arm64 nodes');
    t.ok(described.entries.some((e) => !embeddedEntries.has(e.name)), 'types the snapshot lacks are added');
    t.end();
  });

  await t.test('the described catalog and the embedded one agree label for label on the types both have', (t) => {
    const { compared, differences } = labelDifferences(described.entries, moto.region);
    t.ok(compared > 1000, `${String(compared)} types in both`);
    const found = Object.fromEntries([...differences].map(([label, families]) => [label, [...families].sort()]));
    t.same(found, ec2DataNewerThanSnapshot, 'only the figures EC2 changed since the snapshot differ');
    t.end();
  });

  await t.test('the planner\'s types come from EC2, each offered only in the zones its offerings list', (t) => {
    const zones = ['a', 'b', 'c', 'd'].map((z) => `${moto.region}${z}`);
    const types = buildInstanceTypes(liveCatalog(moto.region, described, undefined), { region: moto.region, zones });
    t.ok(types.length > 1000, `${String(types.length)} priced types`);
    const outside = types.filter((x) => x.offerings.some((o) => !(described.zonesByType.get(x.name) ?? []).includes(o.zone)));
    t.same(outside.map((x) => x.name), [], 'no type is offered in a zone its offerings do not list');
    const narrower = types.filter((x) => new Set(x.offerings.map((o) => o.zone)).size < zones.length);
    t.ok(narrower.length > 0, `${String(narrower.length)} types are offered in fewer than the 4 zones, e.g. ${narrower[0]?.name ?? ''}`);
    t.equal(types[0]?.labels['topology.kubernetes.io/region'], moto.region);
    t.end();
  });

  await t.test('moto has no Pricing API: on-demand prices fall back to the embedded table, and the reason is kept', async (t) => {
    const refresh = new CatalogRefresh({ name: 'providers.pricing.ondemand', fetch: () => aws.onDemandPrices.current(), clock: new FakeClock(), apply: (p) => p.size });
    t.same(await refresh.reconcile(), { requeueAfterMs: 5_000 });
    t.equal(refresh.status().source, 'embedded');
    t.match(refresh.status().reason, /^getting on-demand prices: /);
    t.comment(`moto answered: ${refresh.status().reason ?? ''}`);
  });
});
