import type { EC2Client, InstanceStatus } from '@aws-sdk/client-ec2';
import { paginateDescribeInstanceStatus } from '../sdk/sdk.js';
import type { Clock } from '../../../domain/clock.js';
import type { HealthCategory, InstanceHealth, InstanceHealthSource } from '../../../domain/cloud/instance-health.js';
import { classifyEc2Error } from '../sdk/ec2-errors.js';
import { retryThrottled, type RetryPolicy } from '../sdk/retry-throttled.js';

/** Karpenter's UnhealthyThreshold: a failed check must last this long before we act on it. */
const unhealthyThresholdMs = 120_000;

/** Karpenter's three queries: impaired instance checks, impaired system checks, scheduled events. */
const queries = [
  [{ Name: 'instance-status.status', Values: ['impaired'] }],
  [{ Name: 'system-status.status', Values: ['impaired'] }],
  [{ Name: 'event.code', Values: ['instance-reboot', 'system-reboot', 'system-maintenance', 'instance-retirement', 'instance-stop'] }],
];

interface Failure { readonly category: HealthCategory; readonly sinceMs: number }

function failures(s: InstanceStatus, nowMs: number): Failure[] {
  const checks = (category: HealthCategory, details: InstanceStatus['InstanceStatus']): Failure[] =>
    (details?.Details ?? []).filter((d) => d.Status === 'failed').map((d) => ({ category, sinceMs: d.ImpairedSince?.getTime() ?? nowMs }));
  const failed = [...checks('instance_status', s.InstanceStatus), ...checks('system_status', s.SystemStatus)]
    .filter((f) => nowMs - f.sinceMs >= unhealthyThresholdMs);
  const events = (s.Events ?? []).map((): Failure => ({ category: 'event_status', sinceMs: nowMs }));
  return [...failed, ...events];
}

/** DescribeInstanceStatus as Karpenter's instancestatus provider reads it. */
export class Ec2InstanceHealth implements InstanceHealthSource {
  readonly #ec2: EC2Client;
  readonly #retry: RetryPolicy;
  readonly #clock: Clock;

  constructor(ec2: EC2Client, retry: RetryPolicy) {
    this.#ec2 = ec2;
    this.#retry = retry;
    this.#clock = retry.clock;
  }

  async unhealthy(): Promise<InstanceHealth[]> {
    try {
      const statuses = await retryThrottled(this.#retry, 'describing instance status', () => this.#describe());
      const nowMs = this.#clock.now();
      return [...statuses.values()].flatMap((s) => {
        const found = failures(s, nowMs);
        if (found.length === 0 || s.InstanceId === undefined) return [];
        return [{ instanceId: s.InstanceId, categories: [...new Set(found.map((f) => f.category))], impairedSinceMs: Math.min(...found.map((f) => f.sinceMs)) }];
      });
    } catch (e: unknown) {
      throw classifyEc2Error(e, 'describing instance status');
    }
  }

  async #describe(): Promise<Map<string, InstanceStatus>> {
    const seen = new Map<string, InstanceStatus>();
    for (const Filters of queries) {
      for await (const page of paginateDescribeInstanceStatus({ client: this.#ec2 }, { Filters })) {
        const fresh = (page.InstanceStatuses ?? []).filter((s) => s.InstanceId !== undefined && !seen.has(s.InstanceId));
        for (const s of fresh) seen.set(s.InstanceId ?? '', s);
      }
    }
    return seen;
  }
}
