import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

interface AuditEvent {
  readonly auditID: string;
  readonly verb: string;
  readonly user?: { readonly username?: string };
  readonly userAgent?: string;
  readonly objectRef?: { readonly resource?: string; readonly subresource?: string };
  readonly requestURI?: string;
  readonly requestReceivedTimestamp?: string;
}

export interface UserRequests {
  /** Requests by "verb resource[/subresource]", most first. */
  readonly byKind: readonly (readonly [string, number])[];
  readonly total: number;
  /** The most requests received in any one `peakWindowS`-second window. */
  readonly peak: number;
}

function kindOf(event: AuditEvent): string {
  const resource = event.objectRef?.resource ?? event.requestURI ?? '?';
  return `${event.verb} ${resource}${event.objectRef?.subresource === undefined ? '' : `/${event.objectRef.subresource}`}`;
}

/**
 * The requests in the API server's audit log from byte `offset` on, each once whatever its stages, read line by line:
 * at 10,000 pods the log holds hundreds of megabytes. `mayMatch` skips a line before it is parsed.
 */
async function* requestsOnce(path: string, offset: number, mayMatch: (line: string) => boolean = () => true): AsyncGenerator<AuditEvent> {
  const seen = new Set<string>();
  const lines = createInterface({ input: createReadStream(path, { start: offset, encoding: 'utf8' }), crlfDelay: Infinity });
  for await (const line of lines) {
    if (!mayMatch(line)) continue;
    const event = JSON.parse(line) as AuditEvent;
    if (seen.has(event.auditID)) continue;
    seen.add(event.auditID);
    yield event;
  }
}

const mostFirst = (counts: ReadonlyMap<string, number>): [string, number][] => [...counts].sort((a, b) => b[1] - a[1]);

/** One user's requests in the audit log from byte `offset` on. */
export async function userRequests(path: string, offset: number, user: string, peakWindowS = 10): Promise<UserRequests> {
  const byKind = new Map<string, number>();
  const byWindow = new Map<number, number>();
  let total = 0;
  // Most lines are other clients': skipped before parsing.
  for await (const event of requestsOnce(path, offset, (line) => line.includes(`"username":"${user}"`))) {
    if (event.user?.username !== user) continue;
    total += 1;
    const key = kindOf(event);
    byKind.set(key, (byKind.get(key) ?? 0) + 1);
    const window = Math.floor(Date.parse(event.requestReceivedTimestamp ?? '') / (peakWindowS * 1000));
    if (!Number.isNaN(window)) byWindow.set(window, (byWindow.get(window) ?? 0) + 1);
  }
  return { byKind: mostFirst(byKind), total, peak: Math.max(0, ...byWindow.values()) };
}

const writeVerbs = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

/**
 * Every client's writes in the audit log from byte `offset` on, by "user (program): verb resource[/subresource]", most first:
 * which component does the writes a window's apiserver_request_total counts.
 */
export async function writesByUser(path: string, offset: number): Promise<[string, number][]> {
  const byKey = new Map<string, number>();
  for await (const event of requestsOnce(path, offset)) {
    if (!writeVerbs.has(event.verb)) continue;
    // One admin certificate serves kube-scheduler, kube-controller-manager and kwok in the test stack: the user agent's
    // program name tells them apart.
    const key = `${event.user?.username ?? '?'} (${event.userAgent?.split('/')[0] ?? '?'}): ${kindOf(event)}`;
    byKey.set(key, (byKey.get(key) ?? 0) + 1);
  }
  return mostFirst(byKey);
}
