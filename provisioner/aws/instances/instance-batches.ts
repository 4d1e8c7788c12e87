import type { EC2Client } from '@aws-sdk/client-ec2';
import type { LaunchedInstance } from '../../../domain/cloud/cloud-provider.js';
import type { ItemOutcome } from '../sdk/ec2-call-batcher.js';
import { isNotFoundError } from '../sdk/ec2-errors.js';
import { describeInstance, terminateInstance, toLaunchedInstance } from './instances.js';
import { DescribeInstancesCommand, TerminateInstancesCommand } from '../sdk/sdk.js';
import { retryThrottled, type RetryPolicy } from '../sdk/retry-throttled.js';

type Outcomes<O> = Promise<readonly ItemOutcome<O>[]>;

/** Each id alone, as before batching: one unknown id must not fail the others. */
async function oneByOne<O>(ids: readonly string[], call: (id: string) => Promise<O>): Outcomes<O> {
  return Promise.all(ids.map((id) => call(id).then((value): ItemOutcome<O> => ({ ok: true, value }), (error: unknown): ItemOutcome<O> => ({ ok: false, error }))));
}

/**
 * DescribeInstances for a batch of ids in one call; an id EC2 does not show answers undefined. EC2 refuses the
 * whole call when any id is unknown (InvalidInstanceID.NotFound), so then each id is asked alone, as Karpenter's
 * batcher does.
 */
export function describeInstancesBatch(ec2: EC2Client, retry: RetryPolicy): (ids: readonly string[]) => Outcomes<LaunchedInstance | undefined> {
  return async (ids) => {
    const unique = [...new Set(ids)];
    try {
      const out = await retryThrottled(retry, 'describing instances', () => ec2.send(new DescribeInstancesCommand({ InstanceIds: unique })));
      const found = new Map<string, LaunchedInstance>();
      for (const i of out.Reservations?.flatMap((r) => r.Instances ?? []) ?? []) {
        const launched = toLaunchedInstance(i);
        if (launched !== undefined) found.set(launched.instanceId, launched);
      }
      return ids.map((id) => ({ ok: true, value: found.get(id) }));
    } catch (e: unknown) {
      if (!isNotFoundError(e)) throw e;
      if (unique.length === 1) return ids.map(() => ({ ok: true, value: undefined }));
      return oneByOne(ids, (id) => describeInstance(ec2, retry, id));
    }
  };
}

/** TerminateInstances for a batch of ids in one call; NotFound for the batch falls back to one call per id. */
export function terminateInstancesBatch(ec2: EC2Client, retry: RetryPolicy): (ids: readonly string[]) => Outcomes<'terminating' | 'not-found'> {
  return async (ids) => {
    const unique = [...new Set(ids)];
    try {
      await retryThrottled(retry, 'terminating instances', () => ec2.send(new TerminateInstancesCommand({ InstanceIds: unique })));
      return ids.map(() => ({ ok: true, value: 'terminating' as const }));
    } catch (e: unknown) {
      if (!isNotFoundError(e)) throw e;
      if (unique.length === 1) return ids.map(() => ({ ok: true, value: 'not-found' as const }));
      return oneByOne(ids, (id) => terminateInstance(ec2, retry, id));
    }
  };
}
