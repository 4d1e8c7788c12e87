import { ec2NodeClass } from '../../webhooks/review-fixture.js';

/**
 * For each field in domain/api/unsupported-fields.ts, a manifest that sets it with a value Karpenter's CRD accepts,
 * and the concrete path the refusal must name. Shared by the domain, webhook and `nodesmith validate` tests.
 */
export interface UnsupportedSample {
  /** The entry's path in unsupported-fields.ts. */
  readonly field: string;
  /** The concrete path the problem names. */
  readonly path: string;
  readonly manifest: { apiVersion: string; kind: string; metadata: { name: string }; spec: Record<string, unknown> };
}

const snapshotVolume = (extra: Record<string, unknown>): Record<string, unknown> => ({
  blockDeviceMappings: [
    { deviceName: '/dev/xvda', rootVolume: true, ebs: { volumeSize: '20Gi', volumeType: 'gp3' } },
    { deviceName: '/dev/xvdb', ebs: { snapshotID: 'snap-0123456789abcdef0', ...extra } },
  ],
});

export const unsupportedSamples: readonly UnsupportedSample[] = [
  { field: 'spec.placementGroupSelector', path: 'spec.placementGroupSelector', manifest: ec2NodeClass({ placementGroupSelector: { name: 'cluster-pg' } }, 'placement') },
  { field: 'spec.networkInterfaces', path: 'spec.networkInterfaces', manifest: ec2NodeClass({ networkInterfaces: [{ networkCardIndex: 0, deviceIndex: 0, interfaceType: 'interface' }, { networkCardIndex: 0, deviceIndex: 1, interfaceType: 'efa-only' }] }, 'efa') },
  { field: 'spec.ipPrefixCount', path: 'spec.ipPrefixCount', manifest: ec2NodeClass({ ipPrefixCount: 1 }, 'prefixes') },
  { field: 'spec.cpuOptions', path: 'spec.cpuOptions', manifest: ec2NodeClass({ cpuOptions: { nestedVirtualization: 'enabled' } }, 'nested') },
  { field: 'spec.context', path: 'spec.context', manifest: ec2NodeClass({ context: 'c-0123' }, 'context') },
  { field: 'spec.connectionTracking', path: 'spec.connectionTracking', manifest: ec2NodeClass({ connectionTracking: { tcpEstablishedTimeout: 3600 } }, 'conntrack') },
  { field: 'spec.blockDeviceMappings[].ebs.volumeInitializationRate', path: 'spec.blockDeviceMappings[1].ebs.volumeInitializationRate', manifest: ec2NodeClass(snapshotVolume({ volumeInitializationRate: 200 }), 'init-rate') },
  { field: 'spec.subnetSelectorTerms[].cidr', path: 'spec.subnetSelectorTerms[1].cidr', manifest: ec2NodeClass({ subnetSelectorTerms: [{ id: 'subnet-0123' }, { cidr: '10.0.0.0/16' }] }, 'cidr') },
];
