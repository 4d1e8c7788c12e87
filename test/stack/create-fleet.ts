import type { IncomingHttpHeaders } from 'node:http';
import { allocationStrategy, chooseOverride, launchedTypes, offered, type Ec2Prices, type FleetChoice } from './ec2-allocation.js';
import type { CapacityFault } from './fault-proxy.js';
import { collectOverrides, errorItem, matches, withoutOverrides, type Override } from './fleet-overrides.js';
import type { TemplateGroups } from './template-groups.js';

export interface Answer { readonly status: number; readonly type: string; readonly text: string }

/** What a CreateFleet passing the proxy depends on: its faults, EC2's prices if set, and the way on to moto. */
export interface FleetContext {
  readonly faults: readonly CapacityFault[];
  readonly prices: Ec2Prices | undefined;
  readonly choices: FleetChoice[];
  readonly templateGroups: TemplateGroups;
  forward(body: string | Buffer): Promise<Answer>;
}

function emptyFleet(errorSet: string): Answer {
  // EC2 answers an instant fleet that launched nothing with 200, no instances and the errors.
  const text = `<?xml version="1.0" encoding="UTF-8"?>\n<CreateFleetResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/"><requestId>fault-proxy</requestId><fleetId>fleet-00000000-0000-0000-0000-000000000000</fleetId>${errorSet}<fleetInstanceSet/></CreateFleetResponse>`;
  return { status: 200, text, type: 'text/xml' };
}

/**
 * A CreateFleet as EC2 would take it, in front of moto: overrides a capacity fault matches fail with EC2's
 * `errorSet` item (moto never sees them); with prices set, moto is shown only the override EC2's allocation strategy
 * would pick among the rest, and the choice is recorded. The instances launched then get their template's groups
 * before the reply goes back.
 */
export async function createFleet(context: FleetContext, headers: IncomingHttpHeaders, params: URLSearchParams, raw: Buffer): Promise<Answer> {
  const capacityType = params.get('TargetCapacitySpecification.DefaultTargetCapacityType') ?? 'on-demand';
  const overrides = collectOverrides(params);
  const failed = overrides.flatMap((o) => {
    const fault = context.faults.find((f) => matches(f, o, capacityType));
    return fault === undefined ? [] : [{ o, code: fault.code ?? 'InsufficientInstanceCapacity' }];
  });
  const available = overrides.filter((o) => !failed.some((f) => f.o === o));
  const choice = recordChoice(context, params, capacityType, available);
  const dropped = new Set<string>([...failed.map((f) => f.o.prefix), ...(choice?.unchosen ?? [])]);
  const errorSet = failed.length === 0 ? '' : `<errorSet>${failed.map((f) => errorItem(f.o, params, capacityType, f.code)).join('')}</errorSet>`;
  if (available.length === 0 && failed.length > 0) return emptyFleet(errorSet);
  const out = await context.forward(dropped.size === 0 ? raw : withoutOverrides(params, dropped).toString());
  if (out.status !== 200) return out;
  if (choice !== undefined) choice.record.launched = launchedTypes(out.text);
  await context.templateGroups.apply(headers, out.text);
  return errorSet === '' ? out : { ...out, text: out.text.replace('</CreateFleetResponse>', `${errorSet}</CreateFleetResponse>`) };
}

/** With prices set: the override EC2 picks, recorded, and the prefixes of the others, which moto must not see. */
function recordChoice(context: FleetContext, params: URLSearchParams, capacityType: string, available: readonly Override[]): { record: FleetChoice; unchosen: string[] } | undefined {
  const prices = context.prices;
  // A dry run (Karpenter's EC2NodeClass validation asks one) launches nothing and is no choice of EC2's.
  if (prices === undefined || available.length === 0 || params.get('DryRun') === 'true') return undefined;
  const strategy = allocationStrategy(params, capacityType);
  const chosen = chooseOverride(available, capacityType, strategy, prices);
  const record: FleetChoice = {
    capacityType, strategy, offered: available.map((o) => offered(o, capacityType, prices)),
    chosen: chosen === undefined ? undefined : offered(chosen, capacityType, prices), launched: [],
  };
  context.choices.push(record);
  return { record, unchosen: available.filter((o) => o !== chosen).map((o) => o.prefix) };
}
