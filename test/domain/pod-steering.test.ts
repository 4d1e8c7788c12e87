import t from 'tap';
import type { Pod } from '../../domain/core/pod.js';
import { familyRejection, readPodSteering, steeringProblems } from '../../domain/pod-steering.js';
import { podAnnotations as a } from '../../domain/product-keys.js';

function annotated(annotations: Record<string, string>): Pod {
  return { metadata: { name: 'p', annotations }, spec: { containers: [] } };
}

const reads: readonly { annotations: Record<string, string>; steering: object }[] = [
  { annotations: {}, steering: {} },
  { annotations: { [a.capacityTypePreference]: 'spot' }, steering: { capacityTypePreference: 'spot' } },
  { annotations: { [a.capacityTypePreference]: 'reserved' }, steering: {} },
  { annotations: { [a.instanceFamilies]: 'm7i, c7i' }, steering: { instanceFamilies: ['m7i', 'c7i'] } },
  { annotations: { [a.instanceFamilies]: 'm7i,,c7i' }, steering: {} },
  { annotations: { [a.excludedInstanceFamilies]: 't3,t3a' }, steering: { excludedInstanceFamilies: ['t3', 't3a'] } },
  { annotations: { [a.maxPricePerHour]: '0.25' }, steering: { maxPricePerHour: 0.25 } },
  { annotations: { [a.maxPricePerHour]: '0' }, steering: {} },
  { annotations: { [a.maxPricePerHour]: ' 0.25' }, steering: {} },
  { annotations: { [a.preferredNodePool]: 'general' }, steering: { preferredNodePool: 'general' } },
  { annotations: { [a.preferredNodePool]: '' }, steering: {} },
];

void t.test('the readers take exactly the values the webhook accepts', (t) => {
  for (const { annotations, steering } of reads) {
    const label = JSON.stringify(annotations);
    t.strictSame(readPodSteering(annotated(annotations)), steering, `reads ${label}`);
    t.equal(steeringProblems(annotations).length === 0, Object.keys(steering).length === Object.keys(annotations).length, `the webhook agrees on ${label}`);
  }
  t.end();
});

void t.test('an instance family outside the allowed list or inside the excluded one is refused with the annotation named', (t) => {
  const steering = readPodSteering(annotated({ [a.instanceFamilies]: 'm7i,t3', [a.excludedInstanceFamilies]: 't3' }));
  t.equal(familyRejection(steering, 'm7i'), undefined);
  t.match(familyRejection(steering, 'c7i'), /c7i is not in the pod's nodesmith.io\/instance-families/);
  t.match(familyRejection(steering, 't3'), /t3 is excluded by the pod's nodesmith.io\/excluded-instance-families/);
  t.end();
});
