import { Type, type Static } from '@sinclair/typebox';
import { cel, stringEnum } from './structural-schema.js';

/** 1–64000 G / 1–59000 Gi / 1–64 T(i): what EBS accepts, checked again in the webhook for clearer messages. */
export const volumeSizePattern = '^[1-9][0-9]*(Gi|G|Ti|T)$';
export const volumeTypes = ['standard', 'io1', 'io2', 'gp2', 'sc1', 'st1', 'gp3'] as const;

export const BlockDevice = Type.Object(
  {
    deleteOnTermination: Type.Optional(Type.Boolean()),
    encrypted: Type.Optional(Type.Boolean()),
    iops: Type.Optional(Type.Integer({ minimum: 0, format: 'int64' })),
    kmsKeyID: Type.Optional(Type.String()),
    snapshotID: Type.Optional(Type.String({ pattern: '^snap-[0-9a-z]+$' })),
    throughput: Type.Optional(Type.Integer({ minimum: 0, format: 'int64' })),
    volumeInitializationRate: Type.Optional(Type.Integer({ minimum: 100, maximum: 300, format: 'int32' })),
    volumeSize: Type.Optional(Type.String({ pattern: volumeSizePattern })),
    volumeType: Type.Optional(stringEnum(volumeTypes)),
  },
  {
    ...cel(
      { rule: 'has(self.snapshotID) || has(self.volumeSize)', message: 'snapshotID or volumeSize must be defined' },
      { rule: "!has(self.volumeInitializationRate) || (has(self.snapshotID) && self.snapshotID != '')", message: 'snapshotID must be set when volumeInitializationRate is set' },
    ),
  },
);
export type BlockDevice = Static<typeof BlockDevice>;

export const BlockDeviceMapping = Type.Object({
  deviceName: Type.Optional(Type.String()),
  ebs: Type.Optional(BlockDevice),
  rootVolume: Type.Optional(Type.Boolean()),
});
export type BlockDeviceMapping = Static<typeof BlockDeviceMapping>;

export const BlockDeviceMappings = Type.Array(BlockDeviceMapping, {
  maxItems: 50,
  ...cel({ rule: 'self.filter(x, has(x.rootVolume) ? x.rootVolume == true : false).size() <= 1', message: 'must have only one blockDeviceMappings with rootVolume' }),
});

export const MetadataOptions = Type.Object(
  {
    httpEndpoint: Type.Optional(stringEnum(['enabled', 'disabled'] as const, { default: 'enabled' })),
    httpProtocolIPv6: Type.Optional(stringEnum(['enabled', 'disabled'] as const, { default: 'disabled' })),
    httpPutResponseHopLimit: Type.Optional(Type.Integer({ minimum: 1, maximum: 64, default: 1, format: 'int64' })),
    httpTokens: Type.Optional(stringEnum(['required', 'optional'] as const, { default: 'required' })),
  },
  {
    default: { httpEndpoint: 'enabled', httpProtocolIPv6: 'disabled', httpPutResponseHopLimit: 1, httpTokens: 'required' },
  },
);
export type MetadataOptions = Static<typeof MetadataOptions>;
