/** An instance whose status check the fault proxy reports as failed (moto always reports every check passed). */
export interface Impairment {
  readonly instanceId: string;
  readonly zone: string;
  /** Which check failed: the instance's own (`instance`) or AWS's hardware and network (`system`). */
  readonly check: 'instance' | 'system';
  readonly since: Date;
}

/** The check a DescribeInstanceStatus request filters for as impaired (`instance-status.status=impaired`), if any. */
export function impairedCheckFilter(params: URLSearchParams): 'instance' | 'system' | undefined {
  for (const [key, value] of params) {
    const m = /^Filter\.(\d+)\.Name$/.exec(key);
    if (m === null || params.get(`Filter.${m[1] ?? ''}.Value.1`) !== 'impaired') continue;
    if (value === 'instance-status.status') return 'instance';
    if (value === 'system-status.status') return 'system';
  }
  return undefined;
}

function summary(failed: boolean, since: Date): string {
  const detail = failed
    ? `<item><name>reachability</name><status>failed</status><impairedSince>${since.toISOString()}</impairedSince></item>`
    : '<item><name>reachability</name><status>passed</status></item>';
  return `<status>${failed ? 'impaired' : 'ok'}</status><details>${detail}</details>`;
}

/** EC2's answer to that filtered query: the impaired instances, with the failed check and when it started failing. */
export function impairedStatusResponse(check: 'instance' | 'system', impairments: readonly Impairment[]): string {
  const items = impairments.filter((i) => i.check === check).map((i) =>
    `<item><instanceId>${i.instanceId}</instanceId><availabilityZone>${i.zone}</availabilityZone>` +
    '<instanceState><code>16</code><name>running</name></instanceState>' +
    `<systemStatus>${summary(i.check === 'system', i.since)}</systemStatus>` +
    `<instanceStatus>${summary(i.check === 'instance', i.since)}</instanceStatus></item>`,
  ).join('');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<DescribeInstanceStatusResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/"><requestId>fault-proxy</requestId><instanceStatusSet>${items}</instanceStatusSet></DescribeInstanceStatusResponse>`;
}
