import { fleetLaunches, topLevelItems } from './template-groups.js';

/**
 * EC2's eventual consistency after a launch: for a while, DescribeInstances does not show an instance CreateFleet
 * just returned. Asked by id, EC2 refuses the whole call with InvalidInstanceID.NotFound; asked by filter, the
 * instance is simply not in the answer. While a lag is set, each instance launched stays unseen for that long.
 */
export class LaunchVisibility {
  #lagMs = 0;
  readonly #hiddenUntil = new Map<string, number>();

  setLag(ms: number): void {
    this.#lagMs = ms;
  }

  /** Notes the instances a CreateFleet reply launched. */
  noteLaunch(createFleetReply: string, nowMs = Date.now()): void {
    if (this.#lagMs <= 0) return;
    for (const launch of fleetLaunches(createFleetReply)) for (const id of launch.instanceIds) this.#hiddenUntil.set(id, nowMs + this.#lagMs);
  }

  #hidden(nowMs: number): Set<string> {
    for (const [id, until] of this.#hiddenUntil) if (until <= nowMs) this.#hiddenUntil.delete(id);
    return new Set(this.#hiddenUntil.keys());
  }

  /** The ids of a DescribeInstances by id that EC2 would not know yet (the call then fails as a whole). */
  unknownIds(params: URLSearchParams, nowMs = Date.now()): string[] {
    const hidden = this.#hidden(nowMs);
    return [...params].filter(([key, value]) => /^InstanceId\.\d+$/.test(key) && hidden.has(value)).map(([, value]) => value);
  }

  /** A DescribeInstances answer without the reservations of instances not visible yet. */
  filterAnswer(xml: string, nowMs = Date.now()): string {
    const hidden = this.#hidden(nowMs);
    if (hidden.size === 0) return xml;
    const set = /<reservationSet>([\s\S]*)<\/reservationSet>/.exec(xml);
    if (set?.[1] === undefined) return xml;
    const kept = topLevelItems(set[1]).filter((item) => ![...item.matchAll(/<instanceId>([^<]+)<\/instanceId>/g)].some((m) => hidden.has(m[1] ?? '')));
    return xml.replace(set[0], `<reservationSet>${kept.map((item) => `<item>${item}</item>`).join('')}</reservationSet>`);
  }
}

export function notFoundBody(ids: readonly string[]): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Response><Errors><Error><Code>InvalidInstanceID.NotFound</Code><Message>The instance IDs '${ids.join(', ')}' do not exist (eventual consistency, injected by the fault proxy)</Message></Error></Errors><RequestID>fault-proxy</RequestID></Response>`;
}
