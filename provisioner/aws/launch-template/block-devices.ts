import type { LaunchTemplateBlockDeviceMappingRequest } from '@aws-sdk/client-ec2';
import type { BlockDeviceMapping } from '../../../domain/cloud/node-class.js';

const gib = 2 ** 30;
const unitBytes: Record<string, number> = { Gi: gib, G: 1e9, Ti: 2 ** 40, T: 1e12 };

/** `20Gi` → 20 (EC2 sizes volumes in GiB); decimal units round up so the disk is never smaller. */
export function volumeSizeGiB(quantity: string): number {
  const m = /^(\d+)(Gi|G|Ti|T)$/.exec(quantity);
  const unit = m?.[2] === undefined ? undefined : unitBytes[m[2]];
  if (m?.[1] === undefined || unit === undefined)
    throw new Error(`volume size ${quantity}: expected <n>Gi|G|Ti|T`);
  return Math.ceil((Number(m[1]) * unit) / gib);
}

export function toLaunchTemplateBlockDevices(
  mappings: readonly BlockDeviceMapping[],
): LaunchTemplateBlockDeviceMappingRequest[] {
  return mappings.map((m) => ({
    DeviceName: m.deviceName,
    Ebs: {
      ...(m.ebs.volumeSize === undefined ? {} : { VolumeSize: volumeSizeGiB(m.ebs.volumeSize) }),
      ...(m.ebs.volumeType === undefined ? {} : { VolumeType: m.ebs.volumeType }),
      ...(m.ebs.encrypted === undefined ? {} : { Encrypted: m.ebs.encrypted }),
      ...(m.ebs.deleteOnTermination === undefined ? {} : { DeleteOnTermination: m.ebs.deleteOnTermination }),
      ...(m.ebs.iops === undefined ? {} : { Iops: m.ebs.iops }),
      ...(m.ebs.throughput === undefined ? {} : { Throughput: m.ebs.throughput }),
      ...(m.ebs.kmsKeyID === undefined ? {} : { KmsKeyId: m.ebs.kmsKeyID }),
      ...(m.ebs.snapshotID === undefined ? {} : { SnapshotId: m.ebs.snapshotID }),
      ...(m.ebs.volumeInitializationRate === undefined ? {} : { VolumeInitializationRate: m.ebs.volumeInitializationRate }),
    },
  }));
}
