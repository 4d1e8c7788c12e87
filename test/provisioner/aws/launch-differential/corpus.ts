import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { OracleCase, OracleCluster, OracleImage } from '../../../support/karpenter-oracle.js';
import { instanceTypeMixes } from './corpus-types.js';
import { fieldVariations, type Variation } from './variations.js';

export const cluster: OracleCluster = {
  name: 'differential',
  endpoint: 'https://0123456789ABCDEF.gr7.us-west-2.eks.amazonaws.com',
  caBundle: Buffer.from('-----BEGIN CERTIFICATE-----\nMIIBdifferential\n-----END CERTIFICATE-----\n').toString('base64'),
  serviceCidr: '10.100.0.0/16',
  kubeDnsIp: '10.100.0.10',
  region: 'us-west-2',
  kubernetesVersion: '1.35',
};

const world = {
  securityGroups: [{ id: 'sg-0123456789abcdef0', name: 'nodes' }],
  subnets: [{ id: 'subnet-0123456789abcdef0', zone: 'us-west-2a', zoneID: 'usw2-az1' }],
  instanceProfile: 'KarpenterNodeInstanceProfile-differential',
  placementGroups: [
    { id: 'pg-0c1a55e7000000001', name: 'differential-cluster', strategy: 'cluster' },
    { id: 'pg-0ba7717100000002', name: 'differential-partition', strategy: 'partition', partitionCount: 3 },
    { id: 'pg-05b7ead000000003', name: 'differential-spread', strategy: 'spread' },
  ],
} as const;

/** Images that id, name and tag selectors find (alias and SSM selectors get theirs from SSM). */
export const taggedImages: OracleImage[] = [
  { id: 'ami-0aaaaaaaaaaaaaaa1', name: 'custom-al2023-x86_64', architecture: 'x86_64', creationDate: '2026-02-01T00:00:00.000Z', tags: { 'karpenter.sh/discovery': 'differential', os: 'al2023' } },
  { id: 'ami-0aaaaaaaaaaaaaaa2', name: 'custom-al2023-arm64', architecture: 'arm64', creationDate: '2026-02-01T00:00:00.000Z', tags: { 'karpenter.sh/discovery': 'differential', os: 'al2023' } },
  { id: 'ami-0bbbbbbbbbbbbbbb1', name: 'bottlerocket-aws-k8s-1.35-x86_64-v1.50.0-0123abcd', architecture: 'x86_64', creationDate: '2026-02-01T00:00:00.000Z', tags: { os: 'bottlerocket' } },
  { id: 'ami-0ccccccccccccccc1', name: 'Windows_Server-2022-English-Core-EKS_Optimized-1.35', architecture: 'x86_64', creationDate: '2026-02-01T00:00:00.000Z', tags: { os: 'windows' } },
  // The ids Karpenter's examples select (al2-custom-ami, custom-family).
  { id: 'ami-123', name: 'example-ami-123', architecture: 'x86_64', creationDate: '2026-02-01T00:00:00.000Z' },
  { id: 'ami-456', name: 'example-ami-456', architecture: 'arm64', creationDate: '2026-02-01T00:00:00.000Z' },
  { id: 'ami-0123456789abcdef0', name: 'my-custom-ami', architecture: 'x86_64', creationDate: '2026-02-01T00:00:00.000Z', tags: {} },
];


type Obj = Record<string, unknown>;

/** The parts of a NodePool a NodeClaim is made from. */
interface PoolDoc {
  readonly metadata?: { readonly name?: string };
  readonly spec?: { readonly template?: { readonly metadata?: { readonly labels?: Obj }; readonly spec?: { readonly requirements?: unknown[]; readonly taints?: unknown[]; readonly startupTaints?: unknown[]; readonly nodeClassRef?: { readonly name?: string } } } };
}

interface ClassDoc {
  readonly kind?: string;
  readonly metadata?: { readonly name?: string };
  readonly spec?: { readonly amiFamily?: string; readonly amiSelectorTerms?: { readonly alias?: string }[]; readonly instanceStorePolicy?: string };
}

/** The NodeClaim Karpenter makes from a NodePool: its template's labels and taints, and the pool label. */
function nodeClaimFor(pool: PoolDoc | undefined, nodeClassName: string, caseName: string): Obj {
  const template = pool?.spec?.template;
  const poolName = pool?.metadata?.name ?? 'default';
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: { name: `${poolName}-${caseName.replace(/[^a-z0-9]/g, '').slice(0, 10)}`, labels: { ...template?.metadata?.labels, 'karpenter.sh/nodepool': poolName } },
    spec: { nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: nodeClassName }, ...claimSpec(template?.spec) },
  };
}

function claimSpec(spec: NonNullable<NonNullable<PoolDoc['spec']>['template']>['spec']): Obj {
  return {
    requirements: spec?.requirements ?? [],
    ...(spec?.taints === undefined ? {} : { taints: spec.taints }),
    ...(spec?.startupTaints === undefined ? {} : { startupTaints: spec.startupTaints }),
  };
}

export interface CaseInput {
  readonly name: string;
  readonly nodeClass: Obj;
  readonly nodeClaim: Obj;
  readonly instanceTypes: readonly string[];
  readonly capacityType?: OracleCase['capacityType'];
  readonly reservation?: NonNullable<OracleCase['reservation']>;
}

export function oracleCase(input: CaseInput): OracleCase {
  return { ...input, capacityType: input.capacityType ?? 'on-demand', cluster, ...world, images: taggedImages };
}

function typesFor(nodeClass: ClassDoc): readonly string[] {
  const spec = nodeClass.spec;
  const family = spec?.amiFamily ?? spec?.amiSelectorTerms?.map((t) => t.alias ?? '').join(',') ?? '';
  if (/windows/i.test(family)) return instanceTypeMixes.x86;
  if (spec?.instanceStorePolicy !== undefined) return instanceTypeMixes.instanceStore;
  return instanceTypeMixes.accelerated;
}

/** The capacity type a scheduler picks for the pool's NodeClaim, in Karpenter's order: spot over on-demand. */
function capacityTypeOf(pool: PoolDoc | undefined): 'spot' | 'on-demand' {
  const requirements = (pool?.spec?.template?.spec?.requirements ?? []) as { key?: string; operator?: string; values?: string[] }[];
  const allowed = requirements.find((r) => r.key === 'karpenter.sh/capacity-type' && r.operator === 'In')?.values;
  return allowed?.includes('spot') === true ? 'spot' : 'on-demand';
}

/** Karpenter's examples/v1: every EC2NodeClass with the NodePool that uses it. */
export function exampleCases(examplesDir: string): OracleCase[] {
  const cases: OracleCase[] = [];
  for (const file of readdirSync(examplesDir).filter((f) => f.endsWith('.yaml')).sort()) {
    const text = readFileSync(join(examplesDir, file), 'utf8').replaceAll('${CLUSTER_NAME}', cluster.name);
    const docs = parseAllDocuments(text).map((d) => d.toJS() as (ClassDoc & PoolDoc & Obj) | null).filter((d) => d !== null);
    const pools = docs.filter((d) => d.kind === 'NodePool');
    for (const nodeClass of docs.filter((d) => d.kind === 'EC2NodeClass')) {
      const className = nodeClass.metadata?.name ?? '';
      const pool = pools.find((p) => p.spec?.template?.spec?.nodeClassRef?.name === className);
      const name = `example/${file.replace(/\.yaml$/, '')}/${className}`;
      cases.push(oracleCase({ name, nodeClass, nodeClaim: nodeClaimFor(pool, className, name), instanceTypes: typesFor(nodeClass), capacityType: capacityTypeOf(pool) }));
    }
  }
  return cases;
}

/** The base every variation changes one thing of. */
export function baseNodeClass(name: string, spec: Obj): Obj {
  return {
    apiVersion: 'karpenter.k8s.aws/v1',
    kind: 'EC2NodeClass',
    metadata: { name },
    spec: {
      role: 'KarpenterNodeRole-differential',
      subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': cluster.name } }],
      securityGroupSelectorTerms: [{ tags: { 'karpenter.sh/discovery': cluster.name } }],
      ...spec,
    },
  };
}

function variationCase(v: Variation): OracleCase {
  const className = v.name.replace(/[^a-z0-9-]/g, '-').slice(0, 60);
  const nodeClass = baseNodeClass(className, v.spec);
  const claim = nodeClaimFor(undefined, className, v.name) as { metadata: { labels: Obj }; spec: Obj };
  const nodeClaim = { ...claim, metadata: { ...claim.metadata, labels: { ...claim.metadata.labels, ...v.nodeClaim?.labels } }, spec: { ...claim.spec, ...v.nodeClaim?.spec } };
  const types = v.instanceTypes ?? typesFor(nodeClass);
  // A reservation holds one instance type: Karpenter launches a reserved NodeClaim as that type only.
  const reserved = v.reservation === undefined ? {} : { reservation: v.reservation, capacityType: 'reserved' as const, instanceTypes: types.slice(0, 1) };
  return oracleCase({ name: `variation/${v.name}`, nodeClass, nodeClaim, instanceTypes: types, ...(v.capacityType === undefined ? {} : { capacityType: v.capacityType }), ...reserved });
}

export function corpus(examplesDir: string): OracleCase[] {
  return [...exampleCases(examplesDir), ...fieldVariations().map(variationCase)];
}
