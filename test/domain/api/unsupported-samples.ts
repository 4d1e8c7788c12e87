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

export const unsupportedSamples: readonly UnsupportedSample[] = [];

/**
 * Fields that were refused as not supported yet until they were honoured (issue 34): each must now be admitted, by
 * the webhook and `nodesmith validate` alike.
 */
export const honouredSamples: readonly UnsupportedSample[] = [
  { field: 'spec.placementGroupSelector', path: 'spec.placementGroupSelector', manifest: ec2NodeClass({ placementGroupSelector: { name: 'cluster-pg' } }, 'placement') },
  { field: 'spec.placementGroupSelector', path: 'spec.placementGroupSelector', manifest: ec2NodeClass({ placementGroupSelector: { id: 'pg-0123456789abcdef0' } }, 'placement-id') },
  { field: 'spec.networkInterfaces', path: 'spec.networkInterfaces', manifest: ec2NodeClass({ networkInterfaces: [{ networkCardIndex: 0, deviceIndex: 0, interfaceType: 'interface' }, { networkCardIndex: 0, deviceIndex: 1, interfaceType: 'efa-only' }] }, 'efa') },
  { field: 'spec.networkInterfaces', path: 'spec.networkInterfaces', manifest: ec2NodeClass({ networkInterfaces: [] }, 'no-interfaces') },
];
