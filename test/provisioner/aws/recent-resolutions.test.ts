import t from 'tap';
import { FakeClock } from '../../../domain/clock.js';
import type { NodeClassResolver } from '../../../domain/cloud/cloud-provider.js';
import type { NodeClassSpec, ResolvedNodeClass } from '../../../domain/cloud/node-class.js';
import { RecentResolutions } from '../../../provisioner/aws/recent-resolutions.js';

function spec(instanceProfile = 'nodes'): NodeClassSpec {
  return { name: 'default', subnetSelectorTerms: [{ tags: { cluster: 'c' } }], securityGroupSelectorTerms: [{ tags: { cluster: 'c' } }], amiSelectorTerms: [{ alias: 'al2023@latest' }], instanceProfile };
}

/** Counts its calls to EC2; each resolves when the test says, or fails. */
class CountingResolver implements NodeClassResolver {
  calls = 0;
  failNext: Error | undefined;

  resolve(asked: NodeClassSpec): Promise<ResolvedNodeClass> {
    this.calls += 1;
    const failure = this.failNext;
    this.failNext = undefined;
    if (failure !== undefined) return Promise.reject(failure);
    return Promise.resolve({ name: asked.name, instanceProfile: asked.instanceProfile, call: this.calls } as unknown as ResolvedNodeClass);
  }
}

const callOf = (resolved: ResolvedNodeClass): unknown => (resolved as unknown as { call: number }).call;

void t.test('a burst of launches resolves the class with one call to EC2', async (t) => {
  const ec2 = new CountingResolver();
  const resolutions = new RecentResolutions(ec2, new FakeClock());
  const resolved = await Promise.all(Array.from({ length: 176 }, () => resolutions.recent.resolve(spec())));
  t.equal(ec2.calls, 1);
  t.equal(new Set(resolved.map(callOf)).size, 1);
});

void t.test("launches use the status controller's answer for a minute; then the next launch asks EC2 again", async (t) => {
  const ec2 = new CountingResolver();
  const clock = new FakeClock();
  const resolutions = new RecentResolutions(ec2, clock);
  await resolutions.fresh.resolve(spec());
  clock.step(59_000);
  t.equal(callOf(await resolutions.recent.resolve(spec())), 1, "the status controller's answer");
  clock.step(1_000);
  t.equal(callOf(await resolutions.recent.resolve(spec())), 2, 'a minute on, asked again');
  t.equal(ec2.calls, 2);
});

void t.test('the status controller always asks EC2, and a launch after it gets the newer answer', async (t) => {
  const ec2 = new CountingResolver();
  const resolutions = new RecentResolutions(ec2, new FakeClock());
  await resolutions.recent.resolve(spec());
  await resolutions.fresh.resolve(spec());
  t.equal(ec2.calls, 2, 'a changed image or subnet is seen at its next pass');
  t.equal(callOf(await resolutions.recent.resolve(spec())), 2);
});

void t.test('a changed class is resolved anew at once', async (t) => {
  const ec2 = new CountingResolver();
  const resolutions = new RecentResolutions(ec2, new FakeClock());
  await resolutions.recent.resolve(spec('nodes'));
  const changed = await resolutions.recent.resolve(spec('other-profile'));
  t.equal(ec2.calls, 2);
  t.equal((changed as unknown as { instanceProfile: string }).instanceProfile, 'other-profile');
});

void t.test('a failed resolution is not kept: the next launch asks EC2 again', async (t) => {
  const ec2 = new CountingResolver();
  const resolutions = new RecentResolutions(ec2, new FakeClock());
  ec2.failNext = new Error('read ECONNRESET');
  await t.rejects(resolutions.recent.resolve(spec()), /ECONNRESET/);
  t.equal(callOf(await resolutions.recent.resolve(spec())), 2);
});
