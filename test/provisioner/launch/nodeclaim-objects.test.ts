import t from 'tap';
import type { EC2NodeClass } from '../../../domain/api/ec2nodeclass-schema.js';
import type { NodePool } from '../../../domain/api/nodepool-schema.js';
import { driftOf, staleHashStamps } from '../../../domain/disruption/drift.js';
import { ec2NodeClassHash, nodePoolHash } from '../../../domain/disruption/drift-hashes.js';
import type { VirtualNodePlan } from '../../../provisioner/index.js';
import type { LaunchedInstance } from '../../../domain/cloud/cloud-provider.js';
import { nodeClaimFor, realNodeFor } from '../../../provisioner/launch/nodeclaim-objects.js';
import { nodeClass, nodePool } from '../../fakes/provisioning-builders.js';

const plan: VirtualNodePlan = {
  nodeName: 'launchable-default-abc12', nodePool: 'default', instanceTypes: ['m5.large'], pricePerHour: 0.096,
  capacityType: 'on-demand', zone: 'us-east-1a', assignedPods: ['shop/cart-0'], room: {},
};

void t.test('a new NodeClaim carries the NodePool and EC2NodeClass hashes it was made from, with their versions', (t) => {
  const pool = nodePool();
  const claim = nodeClaimFor(plan, pool, { cpu: '1' }, nodeClass());
  t.match(claim.metadata.annotations, {
    'karpenter.sh/nodepool-hash': nodePoolHash(pool),
    'karpenter.sh/nodepool-hash-version': 'nodesmith-v3',
    'karpenter.k8s.aws/ec2nodeclass-hash': ec2NodeClassHash(nodeClass().spec),
    'karpenter.k8s.aws/ec2nodeclass-hash-version': 'nodesmith-v6',
  });
  t.end();
});

void t.test('the stamps let drift tell an unchanged NodePool from a changed one', (t) => {
  const pool = nodePool();
  const claim = nodeClaimFor(plan, pool, { cpu: '1' }, nodeClass());
  const annotations = claim.metadata.annotations ?? {};
  const facts = (current: NodePool, currentClass: EC2NodeClass): Parameters<typeof driftOf>[0] => ({
    nodeClaim: { labels: { 'kubernetes.io/arch': 'amd64' }, annotations, createdMs: 0 },
    nodePool: { hash: nodePoolHash(current), requirements: current.spec.template.spec.requirements },
    nodeClassHash: ec2NodeClassHash(currentClass.spec), instanceTypeOffered: true, nowMs: 0,
  });
  t.equal(driftOf(facts(nodePool(), nodeClass())), undefined, 'a NodePool read again after a restart has not drifted');
  const relabelled: NodePool = { ...pool, spec: { ...pool.spec, template: { ...pool.spec.template, metadata: { labels: { team: 'shop' } } } } };
  t.match(driftOf(facts(relabelled, nodeClass())), { reason: 'NodePoolDrifted' });
  const newUserData: EC2NodeClass = { ...nodeClass(), spec: { ...nodeClass().spec, userData: '#!/bin/bash' } };
  t.match(driftOf(facts(pool, newUserData)), { reason: 'NodeClassDrift' });
  t.same(staleHashStamps(annotations, { nodePool: nodePoolHash(pool), nodeClass: ec2NodeClassHash(nodeClass().spec) }), {}, 'nothing to re-stamp');
  t.end();
});

void t.test('without a known EC2NodeClass only the NodePool hash is stamped', (t) => {
  const annotations = nodeClaimFor(plan, nodePool(), { cpu: '1' }).metadata.annotations ?? {};
  t.ok('karpenter.sh/nodepool-hash' in annotations);
  t.notOk('karpenter.k8s.aws/ec2nodeclass-hash' in annotations);
  t.end();
});

void t.test("a new NodeClaim is labelled with its NodePool and its node class, as Karpenter's template labels it", (t) => {
  const pool = nodePool();
  const claim = nodeClaimFor(plan, pool, { cpu: '1' }, nodeClass());
  t.match(claim.metadata.labels, { 'karpenter.sh/nodepool': 'default', 'karpenter.k8s.aws/ec2nodeclass': pool.spec.template.spec.nodeClassRef.name });
  t.end();
});

void t.test('the NodePool template\'s annotations reach the real Node, as Karpenter\'s registration copies them, so a template do-not-disrupt protects it', (t) => {
  const pool = nodePool('default', { template: { metadata: { annotations: { 'karpenter.sh/do-not-disrupt': 'true', 'team.example.com/owner': 'shop' } }, spec: nodePool().spec.template.spec } });
  const claim = nodeClaimFor(plan, pool, { cpu: '1' }, nodeClass());
  const instance: LaunchedInstance = {
    instanceId: 'i-0abc', providerID: 'aws:///us-east-1a/i-0abc', instanceType: 'm5.large', zone: 'us-east-1a', capacityType: 'on-demand',
    imageId: 'ami-1', launchTime: 0, state: 'pending', tags: {},
  };
  const node = realNodeFor(instance, claim, undefined);
  t.match(node.metadata.annotations, {
    'karpenter.sh/do-not-disrupt': 'true',
    'team.example.com/owner': 'shop',
    'karpenter.sh/nodepool-hash': nodePoolHash(pool),
    'karpenter.sh/nodeclaim': claim.metadata.name,
  });
  t.end();
});
