import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { OracleCase, OracleCluster, OracleImage } from '../../support/karpenter-oracle.js';
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
};

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

function nodeClaimFor(pool: Obj | undefined, nodeClassName: string, caseName: string): Obj {
  const template = ((pool?.spec as Obj | undefined)?.template ?? {}) as Obj;
  const meta = (template.metadata ?? {}) as Obj;
  const spec = (template.spec ?? {}) as Obj;
  const poolName = ((pool?.metadata ?? {}) as Obj).name ?? 'default';
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: {
      name: `${String(poolName)}-${caseName.replace(/[^a-z0-9]/g, '').slice(0, 10)}`,
      labels: { ...((meta.labels ?? {}) as Obj), 'karpenter.sh/nodepool': poolName },
    },
    spec: {
      nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: nodeClassName },
      requirements: spec.requirements ?? [],
      ...(spec.taints === undefined ? {} : { taints: spec.taints }),
      ...(spec.startupTaints === undefined ? {} : { startupTaints: spec.startupTaints }),
    },
  };
}

export function oracleCase(name: string, nodeClass: Obj, nodeClaim: Obj, instanceTypes: readonly string[], capacityType: 'on-demand' | 'spot' = 'on-demand'): OracleCase {
  return { name, nodeClass, nodeClaim, instanceTypes, capacityType, cluster, ...world, images: taggedImages };
}

function typesFor(nodeClass: Obj): readonly string[] {
  const spec = nodeClass.spec as Obj;
  const family = String(spec.amiFamily ?? JSON.stringify(spec.amiSelectorTerms));
  if (/windows/i.test(family)) return instanceTypeMixes.x86;
  if (spec.instanceStorePolicy !== undefined) return instanceTypeMixes.instanceStore;
  return instanceTypeMixes.accelerated;
}

/** Karpenter's examples/v1: every EC2NodeClass with the NodePool that uses it. */
export function exampleCases(examplesDir: string): OracleCase[] {
  const cases: OracleCase[] = [];
  for (const file of readdirSync(examplesDir).filter((f) => f.endsWith('.yaml')).sort()) {
    const text = readFileSync(join(examplesDir, file), 'utf8').replaceAll('${CLUSTER_NAME}', cluster.name);
    const docs = parseAllDocuments(text).map((d) => d.toJS() as Obj | null).filter((d): d is Obj => d !== null);
    const pools = docs.filter((d) => d.kind === 'NodePool');
    for (const nodeClass of docs.filter((d) => d.kind === 'EC2NodeClass')) {
      const className = String((nodeClass.metadata as Obj).name);
      const pool = pools.find((p) => ((((p.spec as Obj).template as Obj).spec as Obj).nodeClassRef as Obj).name === className);
      const name = `example/${file.replace(/\.yaml$/, '')}/${className}`;
      cases.push(oracleCase(name, nodeClass, nodeClaimFor(pool, className, name), typesFor(nodeClass)));
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
  const claim = nodeClaimFor(undefined, className, v.name);
  const withClaim = v.nodeClaim === undefined ? claim : { ...claim, metadata: { ...(claim.metadata as Obj), labels: { ...((claim.metadata as Obj).labels as Obj), ...v.nodeClaim.labels } }, spec: { ...(claim.spec as Obj), ...v.nodeClaim.spec } };
  return oracleCase(`variation/${v.name}`, nodeClass, withClaim, v.instanceTypes ?? typesFor(nodeClass), v.capacityType);
}

export function corpus(examplesDir: string): OracleCase[] {
  return [...exampleCases(examplesDir), ...fieldVariations().map(variationCase)];
}
