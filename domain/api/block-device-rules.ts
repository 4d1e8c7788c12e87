import type { BlockDeviceMapping } from './block-device-schema.js';
import { fieldPath, problem, type Problem } from './problem.js';

/** Largest volume EBS accepts, in GiB (64 TiB). */
const maxVolumeGiB = 64 * 1024;
const unitGiB: Readonly<Record<string, number>> = { Gi: 1, G: 1e9 / 2 ** 30, Ti: 1024, T: 1e12 / 2 ** 30 };

function volumeSizeProblem(size: string, path: string): Problem | undefined {
  const match = /^([0-9]+)(Gi|G|Ti|T)$/.exec(size);
  if (!match) return problem(path, 'volume-size', size, 'volumeSize must be a whole number of Gi, G, Ti or T, e.g. 20Gi');
  const gib = Number(match[1]) * (unitGiB[match[2] ?? 'Gi'] ?? 1);
  if (gib < 1 || gib > maxVolumeGiB) return problem(path, 'volume-size', size, 'volumeSize must be between 1Gi and 64Ti');
  return undefined;
}

function checkMapping(mapping: BlockDeviceMapping, path: string): Problem[] {
  const out: Problem[] = [];
  const ebs = mapping.ebs;
  if (ebs === undefined) return out;
  if (ebs.snapshotID === undefined && ebs.volumeSize === undefined) {
    out.push(problem(`${path}.ebs`, 'ebs-size-or-snapshot', ebs, 'snapshotID or volumeSize must be defined'));
  }
  if (ebs.volumeInitializationRate !== undefined && ebs.snapshotID === undefined) {
    out.push(problem(`${path}.ebs.volumeInitializationRate`, 'ebs-initialization-rate', ebs.volumeInitializationRate, 'snapshotID must be set when volumeInitializationRate is set'));
  }
  if (ebs.volumeSize !== undefined) {
    const sizeProblem = volumeSizeProblem(ebs.volumeSize, `${path}.ebs.volumeSize`);
    if (sizeProblem) out.push(sizeProblem);
  }
  return out;
}

/** blockDeviceMappings: each EBS volume sized or from a snapshot, at most one root volume. */
export function checkBlockDevices(mappings: readonly BlockDeviceMapping[] | undefined): Problem[] {
  const out: Problem[] = [];
  const list = mappings ?? [];
  list.forEach((m, i) => { out.push(...checkMapping(m, fieldPath('spec.blockDeviceMappings', i))); });
  const roots = list.filter((m) => m.rootVolume === true).length;
  if (roots > 1) out.push(problem('spec.blockDeviceMappings', 'single-root-volume', roots, 'must have only one blockDeviceMappings with rootVolume'));
  return out;
}
