import t from 'tap';
import type { EC2NodeClassSpec } from '../../../domain/api/ec2nodeclass-schema.js';
import type { NodePool } from '../../../domain/api/nodepool-schema.js';
import { canonicalHash, canonicalJson, isForeignHash } from '../../../domain/disruption/canonical-hash.js';
import { resolvedAmiFamily } from '../../../domain/api/ami-families.js';
import { ec2NodeClassHash, nodePoolHash } from '../../../domain/disruption/drift-hashes.js';
import { nodeClass, nodePool } from '../../fakes/provisioning-builders.js';

function withTemplate(pool: NodePool, template: Record<string, unknown>): NodePool {
  return { ...pool, spec: { ...pool.spec, template: { ...pool.spec.template, ...template } } };
}

function withSpec(spec: EC2NodeClassSpec, over: Record<string, unknown>): EC2NodeClassSpec {
  return { ...spec, ...over };
}

/** The same object with every key order reversed, as another client might send it. */
function reversedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversedKeys);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).reverse().map(([k, v]) => [k, reversedKeys(v)]));
}

void t.test('canonical JSON ignores key order, array order and empty values', (t) => {
  t.equal(canonicalJson({ b: 1, a: [2, 1] }), canonicalJson({ a: [1, 2], b: 1 }));
  t.equal(canonicalJson({ a: 1, b: {}, c: [], d: null, e: undefined, f: { g: [] } }), '{"a":1}');
  t.not(canonicalJson({ a: false }), canonicalJson({}), 'an explicit false is a value');
  t.equal(canonicalHash({ a: 1 }), canonicalHash(JSON.parse('{"a":1}')), 'a restart that re-reads the object hashes the same');
  t.end();
});

void t.test('the NodePool hash is stable across key order and ignores requirements and everything outside the template', (t) => {
  const pool = nodePool();
  const hash = nodePoolHash(pool);
  t.match(hash, /^[0-9a-f]{64}$/);
  t.equal(nodePoolHash(reversedKeys(pool) as NodePool), hash, 'key order');
  const narrowed = withTemplate(pool, { spec: { ...pool.spec.template.spec, requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['arm64'] }] } });
  t.equal(nodePoolHash(narrowed), hash, 'requirements are checked on their own');
  t.equal(nodePoolHash({ ...pool, spec: { ...pool.spec, weight: 50, limits: { cpu: '10' }, disruption: { consolidateAfter: '5m', budgets: [{ nodes: '0' }] } } }), hash, 'weight, limits, disruption');
  t.end();
});

void t.test('the NodePool hash changes with each template field', (t) => {
  const pool = nodePool();
  const spec = pool.spec.template.spec;
  const changes: [string, NodePool][] = [
    ['a template label', withTemplate(pool, { metadata: { labels: { team: 'shop' } } })],
    ['a template annotation', withTemplate(pool, { metadata: { annotations: { note: 'x' } } })],
    ['a taint', withTemplate(pool, { spec: { ...spec, taints: [{ key: 'gpu', effect: 'NoSchedule' }] } })],
    ['expireAfter', withTemplate(pool, { spec: { ...spec, expireAfter: '24h' } })],
    ['terminationGracePeriod', withTemplate(pool, { spec: { ...spec, terminationGracePeriod: '1h' } })],
    ['the nodeClassRef', withTemplate(pool, { spec: { ...spec, nodeClassRef: { ...spec.nodeClassRef, name: 'other' } } })],
  ];
  for (const [what, changed] of changes) t.not(nodePoolHash(changed), nodePoolHash(pool), what);
  const twoTaints = (a: unknown, b: unknown): NodePool => withTemplate(pool, { spec: { ...spec, taints: [a, b] } });
  const gpu = { key: 'gpu', effect: 'NoSchedule' };
  const spot = { key: 'spot', effect: 'NoSchedule' };
  t.equal(nodePoolHash(twoTaints(gpu, spot)), nodePoolHash(twoTaints(spot, gpu)), 'taints are a set');
  t.end();
});

void t.test('the EC2NodeClass hash ignores selectors (not the placement group\'s), ipPrefixCount and how the AMI family is written, and hashes the other launch fields', (t) => {
  const spec = nodeClass().spec;
  const hash = ec2NodeClassHash(spec);
  t.equal(ec2NodeClassHash(reversedKeys(spec) as EC2NodeClassSpec), hash, 'key order');
  const same: [string, Record<string, unknown>][] = [
    ['subnet selectors', { subnetSelectorTerms: [{ id: 'subnet-1' }] }],
    ['subnet selectors by CIDR block (the subnets they select drift on their own)', { subnetSelectorTerms: [{ cidr: '10.0.0.0/16' }] }],
    ['security group selectors', { securityGroupSelectorTerms: [{ id: 'sg-1' }] }],
    ['AMI selectors of the same family', { amiSelectorTerms: [{ alias: 'al2023@v20260101' }] }],
    ['capacity reservation selectors', { capacityReservationSelectorTerms: [{ id: 'cr-1' }] }],
    ['ipPrefixCount', { ipPrefixCount: 2 }],
    ['amiFamily written out as the alias family', { amiFamily: 'AL2023' }],
    // Karpenter's hashstructure tells [] from none (DECISIONS.md): both launch the same template, and nodesmith's
    // hash drops empty lists for every field so that an API server round trip changes nothing.
    ['an empty networkInterfaces list', { networkInterfaces: [] }],
  ];
  for (const [what, over] of same) t.equal(ec2NodeClassHash(withSpec(spec, over)), hash, what);
  const different: [string, Record<string, unknown>][] = [
    ['userData', { userData: '#!/bin/bash' }], ['tags', { tags: { team: 'shop' } }], ['role', { role: 'OtherRole' }],
    ['another AMI family', { amiSelectorTerms: [{ alias: 'bottlerocket@latest' }] }], ['metadataOptions', { metadataOptions: { httpTokens: 'optional' } }],
    // Hashed as Karpenter hashes them (no hash:"ignore" on these EC2NodeClassSpec fields in v1.15).
    ['context', { context: 'ctx-1' }], ['cpuOptions', { cpuOptions: { nestedVirtualization: 'enabled' } }],
    ['connectionTracking', { connectionTracking: { udpTimeout: 45 } }],
    ['placementGroupSelector', { placementGroupSelector: { name: 'training' } }],
    ['networkInterfaces', { networkInterfaces: [{ networkCardIndex: 0, deviceIndex: 0, interfaceType: 'interface' }] }],
  ];
  for (const [what, over] of different) t.not(ec2NodeClassHash(withSpec(spec, over)), hash, what);
  const restored = (ebs: Record<string, unknown>): EC2NodeClassSpec => withSpec(spec, { blockDeviceMappings: [{ deviceName: '/dev/xvda', ebs: { snapshotID: 'snap-1', ...ebs } }] });
  t.not(ec2NodeClassHash(restored({ volumeInitializationRate: 200 })), ec2NodeClassHash(restored({})), 'volumeInitializationRate');
  t.not(ec2NodeClassHash(withSpec(spec, { placementGroupSelector: { name: 'a' } })), ec2NodeClassHash(withSpec(spec, { placementGroupSelector: { id: 'pg-1' } })), 'the selector, not the group it finds');
  t.end();
});

void t.test('the AMI family resolves from the field, else the alias, else Custom', (t) => {
  const spec = nodeClass().spec;
  t.equal(resolvedAmiFamily(spec), 'AL2023');
  t.equal(resolvedAmiFamily(withSpec(spec, { amiSelectorTerms: [{ alias: 'windows2022@latest' }] })), 'Windows2022');
  t.equal(resolvedAmiFamily(withSpec(spec, { amiFamily: 'Custom' })), 'Custom');
  t.equal(resolvedAmiFamily(withSpec(spec, { amiSelectorTerms: [{ id: 'ami-1' }] })), 'Custom');
  t.end();
});

void t.test('a hash Karpenter wrote (a decimal number) is told apart from ours', (t) => {
  t.ok(isForeignHash('6043272830897534'));
  t.notOk(isForeignHash(nodePoolHash(nodePool())));
  t.end();
});
