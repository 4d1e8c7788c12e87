import t from 'tap';
import { driftOf, instanceTypeNotFoundAfterMs, staleHashStamps, type DriftFacts } from '../../../domain/disruption/drift.js';
import { ec2NodeClassHash, nodePoolHash } from '../../../domain/disruption/drift-hashes.js';
import { resolvedDrift } from '../../../domain/disruption/resolved-drift.js';
import { nodeClass, nodePool } from '../../fakes/provisioning-builders.js';

const created = Date.UTC(2026, 10, 23, 8, 0, 0);
const poolHash = nodePoolHash(nodePool());
const classHash = ec2NodeClassHash(nodeClass().spec);
const stamps = {
  'karpenter.sh/nodepool-hash': poolHash, 'karpenter.sh/nodepool-hash-version': 'nodesmith-v3',
  'karpenter.k8s.aws/ec2nodeclass-hash': classHash, 'karpenter.k8s.aws/ec2nodeclass-hash-version': 'nodesmith-v6',
};
const labels = {
  'karpenter.sh/nodepool': 'default', 'kubernetes.io/arch': 'amd64', 'node.kubernetes.io/instance-type': 'm5.large',
  'topology.kubernetes.io/zone': 'us-east-1a', 'karpenter.sh/capacity-type': 'on-demand',
};

function facts(over: Partial<DriftFacts> = {}, annotations: Record<string, string> = stamps): DriftFacts {
  return {
    nodeClaim: { labels, annotations, createdMs: created },
    nodePool: { hash: poolHash, requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }] },
    nodeClassHash: classHash, instanceTypeOffered: true, nowMs: created + 10 * 60_000, ...over,
  };
}

void t.test('a NodeClaim that matches its NodePool and EC2NodeClass has not drifted', (t) => {
  t.equal(driftOf(facts()), undefined);
  t.end();
});

void t.test('a changed NodePool template drifts the NodeClaim', (t) => {
  const changed = nodePoolHash({ ...nodePool(), spec: { ...nodePool().spec, template: { ...nodePool().spec.template, metadata: { labels: { team: 'shop' } } } } });
  t.same(driftOf(facts({ nodePool: { ...facts().nodePool, hash: changed } })), {
    reason: 'NodePoolDrifted', message: 'the NodePool template changed since this NodeClaim was created',
  });
  t.end();
});

void t.test('a hash of another version or written by Karpenter is re-stamped, not drifted', (t) => {
  const changed = { ...facts().nodePool, hash: 'f'.repeat(64) };
  const otherVersion = { ...stamps, 'karpenter.sh/nodepool-hash-version': 'v2' };
  const karpenters = { ...stamps, 'karpenter.sh/nodepool-hash': '6043272830897534' };
  t.equal(driftOf(facts({ nodePool: changed }, otherVersion)), undefined);
  t.equal(driftOf(facts({ nodePool: changed }, karpenters)), undefined);
  t.same(staleHashStamps(karpenters, { nodePool: poolHash, nodeClass: classHash }), {
    'karpenter.sh/nodepool-hash': poolHash, 'karpenter.sh/nodepool-hash-version': 'nodesmith-v3',
  });
  t.same(staleHashStamps({}, { nodePool: poolHash, nodeClass: classHash }), stamps, 'an unstamped NodeClaim gets both');
  t.same(staleHashStamps(stamps, { nodePool: poolHash, nodeClass: classHash }), {}, 'current stamps stay');
  t.end();
});

void t.test('stamps Karpenter wrote with its own versions are re-stamped with versions Karpenter never compares', (t) => {
  // Karpenter v1 stamps nodepool-hash-version v3 and ec2nodeclass-hash-version v6 with decimal hashes.
  const karpenters = {
    'karpenter.sh/nodepool-hash': '6043272830897534', 'karpenter.sh/nodepool-hash-version': 'v3',
    'karpenter.k8s.aws/ec2nodeclass-hash': '2260918925634385', 'karpenter.k8s.aws/ec2nodeclass-hash-version': 'v6',
  };
  t.equal(driftOf(facts({ nodePool: { ...facts().nodePool, hash: 'f'.repeat(64) }, nodeClassHash: 'e'.repeat(64) }, karpenters)), undefined, 'an adopted NodeClaim is not drifted by the hash change');
  const restamped = staleHashStamps(karpenters, { nodePool: poolHash, nodeClass: classHash });
  t.same(restamped, stamps);
  t.not(restamped['karpenter.sh/nodepool-hash-version'], 'v3', 'a Karpenter rolled back compares only equal versions, so it never reads our hash as drift');
  t.not(restamped['karpenter.k8s.aws/ec2nodeclass-hash-version'], 'v6');
  t.end();
});

void t.test('requirements the NodeClaim labels no longer satisfy drift it, with the key and value named', (t) => {
  const require = (key: string, operator: string, values: string[] = []): DriftFacts =>
    facts({ nodePool: { hash: poolHash, requirements: [{ key, operator, values }] } });
  t.same(driftOf(require('node.kubernetes.io/instance-type', 'In', ['c5.large'])), {
    reason: 'RequirementsDrifted',
    message: 'NodeClaim has node.kubernetes.io/instance-type=m5.large; the NodePool now requires node.kubernetes.io/instance-type In [c5.large]',
  });
  t.same(driftOf(require('team', 'Exists')), {
    reason: 'RequirementsDrifted', message: 'NodeClaim has no team label; the NodePool now requires team Exists',
  });
  t.equal(driftOf(require('node.kubernetes.io/instance-type', 'In', ['m5.large', 'c5.large'])), undefined, 'widening drifts nothing');
  t.equal(driftOf(require('team', 'DoesNotExist')), undefined, 'an absent label satisfies DoesNotExist');
  t.equal(driftOf(require('beta.kubernetes.io/arch', 'NotIn', ['arm64'])), undefined, 'aliases are normalised');
  t.end();
});

void t.test('a vanished instance type drifts the NodeClaim only once it is an hour old', (t) => {
  const gone = (age: number): DriftFacts => facts({ instanceTypeOffered: false, nowMs: created + age });
  t.equal(driftOf(gone(instanceTypeNotFoundAfterMs - 1)), undefined);
  t.same(driftOf(gone(instanceTypeNotFoundAfterMs)), {
    reason: 'InstanceTypeNotFound', message: "instance type m5.large is no longer offered in the NodeClaim's zone and capacity type",
  });
  t.end();
});

void t.test('a changed EC2NodeClass drifts the NodeClaim, after the core checks', (t) => {
  const changedClass = ec2NodeClassHash({ ...nodeClass().spec, userData: '#!/bin/bash' });
  t.same(driftOf(facts({ nodeClassHash: changedClass })), {
    reason: 'NodeClassDrift', message: 'the EC2NodeClass changed since this NodeClaim was created',
  });
  t.equal(driftOf(facts({ nodeClassHash: changedClass }, { ...stamps, 'karpenter.k8s.aws/ec2nodeclass-hash-version': 'v5' })), undefined);
  const both = facts({ nodeClassHash: changedClass, nodePool: { ...facts().nodePool, hash: 'f'.repeat(64) } });
  t.match(driftOf(both), { reason: 'NodePoolDrifted' }, 'the NodePool is checked first');
  t.end();
});

void t.test('an AMI, subnet or security group set that moved away from the instance drifts it', (t) => {
  const resolved = { amiIds: new Set(['ami-new']), subnetIds: new Set(['subnet-a', 'subnet-b']), securityGroupIds: new Set(['sg-1', 'sg-2']) };
  const launched = { imageId: 'ami-new', subnetId: 'subnet-a', securityGroupIds: ['sg-2', 'sg-1'] };
  t.equal(resolvedDrift(launched, resolved), undefined);
  t.same(resolvedDrift({ ...launched, imageId: 'ami-old' }, resolved), { reason: 'AMIDrift', message: 'AMI ami-old is no longer selected (now ami-new)' });
  t.same(resolvedDrift({ ...launched, subnetId: 'subnet-c' }, resolved), { reason: 'SubnetDrift', message: 'subnet subnet-c is no longer selected' });
  t.same(resolvedDrift({ ...launched, securityGroupIds: ['sg-1'] }, resolved), {
    reason: 'SecurityGroupDrift', message: 'security groups sg-1 are no longer the selected set (now sg-1, sg-2)',
  });
  const nothingResolved = { amiIds: new Set<string>(), subnetIds: new Set<string>(), securityGroupIds: new Set<string>() };
  t.equal(resolvedDrift({ ...launched, imageId: 'ami-old' }, nothingResolved), undefined, 'an empty lookup decides nothing');
  t.equal(resolvedDrift({ ...launched, securityGroupIds: [] }, resolved), undefined, 'an instance described without security groups decides nothing');
  t.end();
});

void t.test('a NodeClaim whose placement group is not the one its EC2NodeClass resolves to now has PlacementGroupDrift', (t) => {
  const resolved = { amiIds: new Set<string>(), subnetIds: new Set<string>(), securityGroupIds: new Set<string>() };
  const now = (placementGroupId: string | undefined): typeof resolved & { placementGroupId?: string } => (placementGroupId === undefined ? resolved : { ...resolved, placementGroupId });
  t.equal(resolvedDrift({ placementGroupId: 'pg-1' }, now('pg-1')), undefined);
  t.equal(resolvedDrift({ placementGroupId: '' }, now('')), undefined, 'neither in a group');
  t.same(resolvedDrift({ placementGroupId: '' }, now('pg-1')), { reason: 'PlacementGroupDrift', message: 'the node runs outside any placement group; the EC2NodeClass now selects pg-1' }, 'a selector added');
  t.same(resolvedDrift({ placementGroupId: 'pg-1' }, now('')), { reason: 'PlacementGroupDrift', message: 'the node runs in placement group pg-1; the EC2NodeClass now selects none' }, 'a selector removed');
  t.match(resolvedDrift({ placementGroupId: 'pg-1' }, now('pg-2')), { reason: 'PlacementGroupDrift' }, 'another group');
  t.equal(resolvedDrift({ placementGroupId: 'pg-1' }, now(undefined)), undefined, 'a selector whose group is not resolved decides nothing');
  t.match(resolvedDrift({ placementGroupId: '', subnetId: 'subnet-x' }, { ...now('pg-1'), subnetIds: new Set(['subnet-a']) }), { reason: 'SubnetDrift' }, 'after the others, in Karpenter\'s order');
  t.end();
});
