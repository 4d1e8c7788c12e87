import t from 'tap';
import type { EC2NodeClass } from '../../../domain/api/ec2nodeclass-schema.js';
import type { NodeClaim } from '../../../domain/api/nodeclaim-schema.js';
import { FakeClock } from '../../../domain/clock.js';
import { NodeClassNotReadyError } from '../../../domain/cloud/errors.js';
import { instanceProfileName, type InstanceProfile, type InstanceProfileProvider, type InstanceProfileRequest } from '../../../domain/cloud/instance-profiles.js';
import { InstanceProfileController } from '../../../provisioner/nodeclass/instance-profile-controller.js';
import { nodeClassFinalizer } from '../../../domain/karpenter-keys.js';
import { FakeNodeClassWriter as FakeWriter } from '../../fakes/fake-nodeclass-writer.js';
import { nodeClaim } from '../../fakes/builders.js';

/** IAM in memory: roles that exist, profiles with their role. */
class FakeProfiles implements InstanceProfileProvider {
  readonly profiles = new Map<string, InstanceProfile>();
  readonly roles = new Set(['node-role']);
  readonly requests: InstanceProfileRequest[] = [];

  get(name: string): Promise<InstanceProfile | undefined> {
    return Promise.resolve(this.profiles.get(name));
  }

  ensure(request: InstanceProfileRequest): Promise<void> {
    this.requests.push(request);
    if (!this.roles.has(request.role)) return Promise.reject(new NodeClassNotReadyError(`role ${request.role} not found`));
    this.profiles.set(request.name, { name: request.name, roles: [request.role] });
    return Promise.resolve();
  }

  delete(name: string): Promise<void> {
    this.profiles.delete(name);
    return Promise.resolve();
  }
}

function nodeClass(name: string, access: { role?: string; instanceProfile?: string }): EC2NodeClass {
  return {
    apiVersion: 'karpenter.k8s.aws/v1', kind: 'EC2NodeClass',
    metadata: { name, uid: `uid-${name}` },
    spec: { ...access, amiSelectorTerms: [{ alias: 'al2023@latest' }], subnetSelectorTerms: [{ id: 'subnet-1' }], securityGroupSelectorTerms: [{ id: 'sg-1' }], tags: { team: 'a' } },
  };
}

function setup(...classes: EC2NodeClass[]): { classes: Map<string, EC2NodeClass>; claims: Map<string, NodeClaim>; profiles: FakeProfiles; writer: FakeWriter; controller: InstanceProfileController } {
  const map = new Map(classes.map((c) => [c.metadata.name ?? '', c]));
  const claims = new Map<string, NodeClaim>();
  const profiles = new FakeProfiles();
  const writer = new FakeWriter(map);
  const controller = new InstanceProfileController({ view: { nodeClasses: map, nodeClaims: claims }, writer, profiles, cluster: 'prod', region: 'us-west-2', clock: new FakeClock(0) });
  return { classes: map, claims, profiles, writer, controller };
}

const profileOf = (name: string): string => instanceProfileName('prod', 'us-west-2', { name, uid: `uid-${name}` });

void t.test('a role gets an instance profile named, tagged and pathed as Karpenter does, recorded in status', async (t) => {
  const { classes, profiles, controller } = setup(nodeClass('default', { role: 'node-role' }));
  t.same(await controller.reconcile(), { requeueAfterMs: 60_000 });
  const [request] = profiles.requests;
  t.match(request?.name, /^prod_\d+$/);
  t.same(request, {
    name: profileOf('default'), role: 'node-role', path: '/karpenter/us-west-2/prod/uid-default/',
    tags: { team: 'a', 'kubernetes.io/cluster/prod': 'owned', 'eks:eks-cluster-name': 'prod', 'karpenter.k8s.aws/ec2nodeclass': 'default', 'topology.kubernetes.io/region': 'us-west-2' },
  });
  const stored = classes.get('default');
  t.equal(stored?.status?.instanceProfile, profileOf('default'));
  t.match(stored?.status?.conditions, [{ type: 'InstanceProfileReady', status: 'True' }]);
  t.same(stored?.metadata.finalizers, [nodeClassFinalizer], 'the termination finalizer is added');
});

void t.test('a steady NodeClass costs no IAM create and no status write', async (t) => {
  const { profiles, writer, controller } = setup(nodeClass('default', { role: 'node-role' }));
  await controller.reconcile();
  await controller.reconcile();
  t.equal(profiles.requests.length, 1);
  t.equal(writer.patches.length, 1);
});

void t.test('a missing role leaves the NodeClass not ready with the reason, and is retried soon', async (t) => {
  const { classes, controller } = setup(nodeClass('default', { role: 'no-such-role' }));
  t.same(await controller.reconcile(), { requeueAfterMs: 5_000 });
  t.match(classes.get('default')?.status?.conditions, [{ type: 'InstanceProfileReady', status: 'False', reason: 'InstanceProfileCreationFailed', message: /no-such-role not found/ }]);
  t.equal(classes.get('default')?.status?.instanceProfile, undefined);
});

void t.test('a given instance profile is used as given once it exists', async (t) => {
  const { classes, profiles, controller } = setup(nodeClass('given', { instanceProfile: 'my-profile' }));
  await controller.reconcile();
  t.match(classes.get('given')?.status?.conditions, [{ status: 'False', reason: 'InstanceProfileNotFound', message: 'instance profile my-profile does not exist' }]);
  profiles.profiles.set('my-profile', { name: 'my-profile', roles: ['x'] });
  await controller.reconcile();
  t.equal(classes.get('given')?.status?.instanceProfile, 'my-profile');
  t.match(classes.get('given')?.status?.conditions, [{ status: 'True' }]);
  t.same(profiles.requests, [], 'nothing is created for a given profile');
});

void t.test('a deleted NodeClass waits for its NodeClaims, then deletes its profile and releases the finalizer', async (t) => {
  const { classes, claims, profiles, controller } = setup(nodeClass('default', { role: 'node-role' }));
  await controller.reconcile();
  const nc = classes.get('default');
  if (nc !== undefined) classes.set('default', { ...nc, metadata: { ...nc.metadata, deletionTimestamp: '2026-11-23T15:00:00Z' } });
  claims.set('nc-1', nodeClaim({ name: 'nc-1' }));
  t.same(await controller.reconcile(), { requeueAfterMs: 5_000 });
  t.ok(profiles.profiles.has(profileOf('default')), 'the profile stays while a NodeClaim may still launch with it');
  claims.clear();
  await controller.reconcile();
  t.notOk(profiles.profiles.has(profileOf('default')), 'the profile is deleted');
  t.notOk(classes.has('default'), 'the finalizer is released and the NodeClass goes');
});

void t.test('a deleted NodeClass with a given profile never deletes that profile', async (t) => {
  const { classes, profiles, controller } = setup(nodeClass('given', { instanceProfile: 'my-profile' }));
  profiles.profiles.set('my-profile', { name: 'my-profile', roles: ['x'] });
  await controller.reconcile();
  const nc = classes.get('given');
  if (nc !== undefined) classes.set('given', { ...nc, metadata: { ...nc.metadata, deletionTimestamp: '2026-11-23T15:00:00Z' } });
  await controller.reconcile();
  t.ok(profiles.profiles.has('my-profile'));
  t.notOk(classes.has('given'));
});
