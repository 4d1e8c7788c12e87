import t from 'tap';
import type { Pod } from '../../domain/core/pod.js';
import type { PersistentVolume, PersistentVolumeClaim, StorageClass } from '../../domain/core/storage.js';
import { volumeRequirements, type VolumeLookup } from '../../domain/volume-topology.js';

const zone = 'topology.kubernetes.io/zone';
const claims: Record<string, PersistentVolumeClaim> = {
  'db/bound': { metadata: { name: 'bound', namespace: 'db' }, spec: { volumeName: 'pv-b', storageClassName: 'ebs' } },
  'db/unbound': { metadata: { name: 'unbound', namespace: 'db' }, spec: { storageClassName: 'zonal' } },
  'db/plain': { metadata: { name: 'plain', namespace: 'db' }, spec: { storageClassName: 'anywhere' } },
};
const volumes: Record<string, PersistentVolume> = {
  'pv-b': { metadata: { name: 'pv-b' }, spec: { nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: zone, operator: 'In', values: ['us-east-1b'] }] }] } } } },
};
const classes: Record<string, StorageClass> = {
  zonal: { metadata: { name: 'zonal' }, allowedTopologies: [{ matchLabelExpressions: [{ key: zone, values: ['us-east-1a', 'us-east-1c'] }] }] },
  anywhere: { metadata: { name: 'anywhere' } },
};
const lookup: VolumeLookup = { claim: (k) => claims[k], volume: (n) => volumes[n], storageClass: (n) => classes[n] };
const podWith = (...claimNames: string[]): Pod => ({
  metadata: { name: 'p', namespace: 'db' },
  spec: { containers: [], volumes: claimNames.map((c, i) => ({ name: `v${String(i)}`, persistentVolumeClaim: { claimName: c } })) },
});

const cases: { name: string; pod: Pod; want: unknown[] }[] = [
  { name: 'a bound claim follows its volume\'s node affinity', pod: podWith('bound'), want: [{ key: zone, operator: 'In', values: ['us-east-1b'] }] },
  { name: 'an unbound claim follows its storage class\'s allowed topologies', pod: podWith('unbound'), want: [{ key: zone, operator: 'In', values: ['us-east-1a', 'us-east-1c'] }] },
  { name: 'a storage class without topologies adds nothing', pod: podWith('plain'), want: [] },
  { name: 'a claim that does not exist yet adds nothing', pod: podWith('missing'), want: [] },
  { name: 'several claims add all their requirements', pod: podWith('bound', 'unbound'), want: [{ key: zone, operator: 'In', values: ['us-east-1b'] }, { key: zone, operator: 'In', values: ['us-east-1a', 'us-east-1c'] }] },
  { name: 'a pod without claims has no volume requirements', pod: { metadata: { name: 'p' }, spec: { containers: [] } }, want: [] },
];

void t.test('volume topology', (t) => {
  for (const c of cases) t.same(volumeRequirements(c.pod, lookup), c.want, c.name);
  t.end();
});
