import t from 'tap';
import { checkPodSteeringAnnotations } from '../../../domain/api/pod-steering-rules.js';
import { isVirtualNodeName, virtualNodeName, virtualNodePrefix } from '../../../domain/api/virtual-node-name.js';
import { readFile } from 'node:fs/promises';
import { launchableTaint, podAnnotations as a, productDomain } from '../../../domain/product-keys.js';

const cases: readonly { key: string; value: string; valid: boolean }[] = [
  { key: a.capacityTypePreference, value: 'spot', valid: true },
  { key: a.capacityTypePreference, value: 'on-demand', valid: true },
  { key: a.capacityTypePreference, value: 'reserved', valid: false },
  { key: a.capacityTypePreference, value: 'Spot', valid: false },
  { key: a.instanceFamilies, value: 'm7i,c7i', valid: true },
  { key: a.instanceFamilies, value: 'm7i, c7gn', valid: true },
  { key: a.instanceFamilies, value: 'm7i,,c7i', valid: false },
  { key: a.instanceFamilies, value: 'm7i.large', valid: false },
  { key: a.excludedInstanceFamilies, value: 't3,t3a', valid: true },
  { key: a.excludedInstanceFamilies, value: 'T3', valid: false },
  { key: a.maxPricePerHour, value: '0.25', valid: true },
  { key: a.maxPricePerHour, value: '3', valid: true },
  { key: a.maxPricePerHour, value: '0', valid: false },
  { key: a.maxPricePerHour, value: '-1', valid: false },
  { key: a.maxPricePerHour, value: '1e3', valid: false },
  { key: a.maxPricePerHour, value: 'cheap', valid: false },
  { key: a.preferredNodePool, value: 'general-purpose', valid: true },
  { key: a.preferredNodePool, value: 'General_Purpose', valid: false },
  { key: a.preferredNodePool, value: 'x'.repeat(254), valid: false },
  { key: a.skipLaunchableToleration, value: 'true', valid: true },
  { key: a.skipLaunchableToleration, value: 'yes', valid: false },
  { key: 'example.com/other', value: 'anything', valid: true },
];

void t.test('pod steering annotations, one valid or invalid value each', (t) => {
  for (const c of cases) {
    const problems = checkPodSteeringAnnotations({ [c.key]: c.value });
    if (c.valid) t.same(problems, [], `${c.key}=${c.value} is valid`);
    else t.match(problems, [{ path: `metadata.annotations["${c.key}"]`, rule: 'pod-annotation', value: c.value }], `${c.key}=${c.value} is refused`);
  }
  t.same(checkPodSteeringAnnotations(undefined), [], 'no annotations, no problems');
  t.end();
});

void t.test('virtual node names are recognisable by their prefix', (t) => {
  t.equal(virtualNodeName('default-x7k2p'), `${virtualNodePrefix}default-x7k2p`);
  t.ok(isVirtualNodeName('launchable-default-x7k2p'));
  t.notOk(isVirtualNodeName('ip-10-0-0-1.ec2.internal'));
  t.end();
});

void t.test("the pod validator's matchConditions name the prefixes the domain uses, so no refusable pod skips it", async (t) => {
  const manifest = await readFile('manifests/webhooks/webhook-configurations.yaml', 'utf8');
  const steering = manifest.slice(manifest.indexOf('- name: steering.pods.nodesmith.io'), manifest.indexOf('- name: binding-guard.pods.nodesmith.io'));
  t.match(steering, `k.startsWith('${productDomain}/')`, 'a pod carrying any annotation of ours is judged');
  t.match(steering, `object.spec.nodeName.startsWith('${virtualNodePrefix}')`, 'a pod created on a virtual node is judged');
  for (const key of Object.values(a)) t.ok(key.startsWith(`${productDomain}/`), `${key} is under ${productDomain}/`);
  const refused = checkPodSteeringAnnotations({ 'example.com/max-price-per-hour': '-1' });
  t.same(refused, [], 'an annotation outside our domain is not ours to refuse, so skipping pods without ours loses nothing');
});

void t.test("the launchable toleration policy's CEL names the taint and the opt-out annotation the domain uses", async (t) => {
  const policy = await readFile('manifests/webhooks/launchable-toleration-policy.yaml', 'utf8');
  const tolerationLiteral = `Object.spec.tolerations{key: '${launchableTaint.key}', operator: 'Equal', value: '${launchableTaint.value}', effect: '${launchableTaint.effect}'}`;
  t.equal(policy.split(tolerationLiteral).length - 1, 2, 'both patches (a pod with tolerations, one without) add the taint the virtual nodes carry');
  t.match(policy, `t.key == '${launchableTaint.key}'`, 'a pod tolerating that taint already is skipped');
  t.match(policy, `t.effect == '${launchableTaint.effect}'`, 'by its effect too');
  t.match(policy, `object.metadata.annotations['${a.skipLaunchableToleration}'] != 'true'`, 'a pod that opts out is skipped');
});
