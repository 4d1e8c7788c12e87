import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { impairedCheckFilter, impairedStatusResponse, type Impairment } from './instance-status-fault.js';
import { LaunchVisibility, notFoundBody } from './launch-visibility.js';
import { escapeXml } from './fleet-overrides.js';
import { createFleet, type Answer } from './create-fleet.js';
import type { Ec2Prices, FleetChoice } from './ec2-allocation.js';
import { getProductsReply } from './price-list.js';
import { TemplateGroups } from './template-groups.js';
import { describePlacementGroups, type ProxyPlacementGroup } from './placement-groups.js';
import { staticAnswerSlot } from './static-answers.js';

/** Which CreateFleet overrides fail; unset fields match anything. */
export interface CapacityFault {
  readonly instanceType?: string;
  readonly zone?: string;
  readonly capacityType?: 'spot' | 'on-demand';
  /** Defaults to InsufficientInstanceCapacity. */
  readonly code?: string;
}

export interface FaultProxy {
  /** Point the SDK here instead of at moto. */
  readonly endpoint: string;
  /** Every EC2 Query `Action` seen, in order (also for requests that were faulted). */
  readonly actions: string[];
  /** The form parameters of every EC2 Query request as the client sent them, in order. */
  readonly requests: URLSearchParams[];
  /** Make matching CreateFleet overrides fail as EC2 does: HTTP 200 with an `errorSet` item; the result lifts it. */
  failCapacity(fault: CapacityFault): () => void;
  /** Answer the next `times` requests for `action` with HTTP 503 RequestLimitExceeded (or `code`). */
  throttle(action: string, times: number, code?: string): void;
  /**
   * Rewrite DescribeSpotPriceHistory answers: each record's price becomes `price(type, zone)`, and
   * records it returns undefined for are dropped (moto answers one constant price for every type).
   */
  setSpotPrices(price: ((instanceType: string, zone: string) => number | undefined) | undefined): void;
  /**
   * Answer as EC2 would with one price table (docs/moto-differences.md): the Pricing API's GetProducts from its
   * on-demand prices, DescribeSpotPriceHistory from its spot prices, and each CreateFleet's instance chosen by the
   * fleet's allocation strategy from them (moto would launch the first override). Undefined turns it off.
   */
  setEc2Prices(prices: Ec2Prices | undefined): void;
  /** Every CreateFleet since prices were set: what was offered, what EC2 would pick, what launched. */
  readonly fleetChoices: FleetChoice[];
  /**
   * Report these instances' status checks as failed: DescribeInstanceStatus filtered for impaired instance or system
   * checks answers them (and only them); other queries pass through to moto, which reports every check passed.
   */
  setImpaired(impairments: readonly Impairment[]): void;
  /** Answer the next `times` requests for `action` with this error, e.g. 403 UnauthorizedOperation. */
  failAction(action: string, fault: { times: number; code: string; status: number }): void;
  /** Hold the next `times` requests for `action` for `ms` before passing them on (a slow EC2). */
  slow(action: string, delay: { times: number; ms: number }): void;
  /** Instances launched from now on stay out of DescribeInstances for `ms` (EC2's eventual consistency); 0 ends it. */
  lagLaunches(ms: number): void;
  /** Answer DescribePlacementGroups as EC2 would with these groups (moto 5.2.5 has no placement group API); undefined: pass on. */
  setPlacementGroups(groups: readonly ProxyPlacementGroup[] | undefined): void;
  clear(): void;
  stop(): Promise<void>;
}

function errorBody(code: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Response><Errors><Error><Code>${escapeXml(code)}</Code><Message>${escapeXml(code)} (injected by the fault proxy).</Message></Error></Errors><RequestID>fault-proxy</RequestID></Response>`;
}


async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

interface State {
  readonly target: string;
  readonly actions: string[];
  readonly requests: URLSearchParams[];
  faults: CapacityFault[];
  spotPrice: ((instanceType: string, zone: string) => number | undefined) | undefined;
  prices: Ec2Prices | undefined;
  readonly choices: FleetChoice[];
  impaired: readonly Impairment[];
  throttles: Map<string, { left: number; code: string; status: number }>;
  delays: Map<string, { left: number; ms: number }>;
  readonly visibility: LaunchVisibility;
  readonly templateGroups: TemplateGroups;
  placementGroups: readonly ProxyPlacementGroup[] | undefined;
  /**
   * CreateFleets on their way through moto and the groups' fix-up. moto has the instances from its launch on, before
   * the fix-up gives them their template's groups: a DescribeInstances in between (a drift recheck listing the
   * cluster's instances by tag) saw a spot instance with moto's default group and marked it SecurityGroupDrift (drift-at-rest failed so in two suite runs).
   * On EC2 an instance has its groups from its launch, so a describe waits here until the launches under way are done.
   */
  readonly launching: Set<Promise<unknown>>;
}

async function forward(
  state: State,
  req: IncomingMessage,
  body: string | Buffer,
): Promise<{ status: number; text: string; type: string }> {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (
      typeof v === 'string' &&
      !['host', 'content-length', 'connection', 'transfer-encoding'].includes(k)
    )
      headers[k] = v;
  }
  const res = await fetch(`${state.target}${req.url ?? '/'}`, {
    method: req.method ?? 'POST',
    headers,
    body: req.method === 'GET' ? null : body,
  });
  return {
    status: res.status,
    text: await res.text(),
    type: res.headers.get('content-type') ?? 'text/xml',
  };
}

function send(res: ServerResponse, status: number, type: string, text: string): void {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** JSON-protocol services (SQS) name the operation in `X-Amz-Target: AmazonSQS.ReceiveMessage`. */
function jsonTarget(req: IncomingMessage): string | undefined {
  const target = req.headers['x-amz-target'];
  return typeof target === 'string' ? target.split('.').at(-1) : undefined;
}

const spotItem = /<item>((?:(?!<\/item>)[\s\S])*?<spotPrice>[^<]*<\/spotPrice>(?:(?!<\/item>)[\s\S])*?)<\/item>/g;

/** Replaces each history record's price, dropping the records `price` has no value for. */
function repriced(xml: string, price: (instanceType: string, zone: string) => number | undefined): string {
  return xml.replace(spotItem, (item: string, body: string) => {
    const type = /<instanceType>([^<]*)<\/instanceType>/.exec(body)?.[1] ?? '';
    const zone = /<availabilityZone>([^<]*)<\/availabilityZone>/.exec(body)?.[1] ?? '';
    const value = price(type, zone);
    return value === undefined ? '' : item.replace(/<spotPrice>[^<]*<\/spotPrice>/, `<spotPrice>${String(value)}</spotPrice>`);
  });
}

/** The made-up answer to a DescribeInstanceStatus query for impaired checks, while impairments are set. */
function impairedAnswer(state: State, action: string, params: URLSearchParams): string | undefined {
  if (action !== 'DescribeInstanceStatus' || state.impaired.length === 0) return undefined;
  const check = impairedCheckFilter(params);
  return check === undefined ? undefined : impairedStatusResponse(check, state.impaired);
}

/** An answer the proxy makes up instead of asking moto: a throttle or failure, an unknown new instance, impaired checks. */
function injectedAnswer(state: State, action: string, target: string | undefined, params: URLSearchParams): Answer | undefined {
  const throttle = state.throttles.get(action);
  if (throttle !== undefined && throttle.left > 0) {
    throttle.left--;
    if (target === undefined) return { status: throttle.status, type: 'text/xml', text: errorBody(throttle.code) };
    return { status: throttle.status, type: 'application/x-amz-json-1.0', text: JSON.stringify({ __type: `com.amazonaws.sqs#${throttle.code}`, message: `${throttle.code} (injected by the fault proxy)` }) };
  }
  const unknown = action === 'DescribeInstances' ? state.visibility.unknownIds(params) : [];
  if (unknown.length > 0) return { status: 400, type: 'text/xml', text: notFoundBody(unknown) };
  if (action === 'DescribePlacementGroups' && state.placementGroups !== undefined) return describePlacementGroups(state.placementGroups, params);
  const impaired = impairedAnswer(state, action, params);
  return impaired === undefined ? undefined : { status: 200, type: 'text/xml', text: impaired };
}

/** moto's answer as EC2 would give it: spot prices set by the test, instances launched moments ago not seen yet. */
function rewritten(state: State, action: string, out: Answer): string {
  if (action === 'CreateFleet' && out.status === 200) state.visibility.noteLaunch(out.text);
  if (action === 'DescribeInstances') return state.visibility.filterAnswer(out.text);
  const price = state.spotPrice;
  return action === 'DescribeSpotPriceHistory' && price !== undefined ? repriced(out.text, price) : out.text;
}

/** moto's answer; a CreateFleet counted among the launches under way until its groups are fixed, which a describe waits for. */
async function fromMoto(state: State, req: IncomingMessage, call: { readonly action: string; readonly params: URLSearchParams; readonly raw: Buffer }): Promise<Answer> {
  const { action, params, raw } = call;
  if (action === 'DescribeInstances') await Promise.allSettled([...state.launching]);
  if (action !== 'CreateFleet') return forward(state, req, raw);
  const launch = createFleet({ ...state, forward: (fleetBody) => forward(state, req, fleetBody) }, req.headers, params, raw);
  state.launching.add(launch);
  try {
    return await launch;
  } finally {
    state.launching.delete(launch);
  }
}

async function handle(state: State, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const raw = await readBody(req);
  const params = new URLSearchParams(raw.toString('utf8'));
  const target = jsonTarget(req);
  const action = target ?? params.get('Action') ?? '';
  state.actions.push(action);
  state.requests.push(params);
  const delay = state.delays.get(action);
  if (delay !== undefined && delay.left > 0) {
    delay.left--;
    await new Promise((resolve) => setTimeout(resolve, delay.ms));
  }
  const injected = injectedAnswer(state, action, target, params);
  if (injected !== undefined) {
    send(res, injected.status, injected.type, injected.text);
    return;
  }
  if (action === 'GetProducts' && state.prices !== undefined) {
    const reply = getProductsReply(state.prices, raw.toString('utf8'));
    send(res, reply.status, 'application/x-amz-json-1.1', reply.text);
    return;
  }
  const slot = staticAnswerSlot(action, req.headers.authorization, raw.toString('utf8'));
  const kept = slot?.kept();
  if (kept !== undefined) {
    send(res, kept.status, kept.type, kept.text);
    return;
  }
  const out = await fromMoto(state, req, { action, params, raw });
  slot?.keep(out);
  send(res, out.status, out.type, rewritten(state, action, out));
}

/**
 * A loopback proxy in front of moto for EC2 Query requests: it injects capacity errors into
 * CreateFleet (removing the failed overrides before moto sees them, then adding EC2's `errorSet`
 * to the reply) and throttling replies, and gives the instances a fleet launched their launch
 * template's security groups, as EC2 does and moto does not (see TemplateGroups); everything else
 * passes through unchanged. JSON-protocol calls (SQS) can be throttled or failed too, by operation
 * name, with a JSON error body.
 */
export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const state: State = { target, actions: [], requests: [], faults: [], spotPrice: undefined, prices: undefined, choices: [], impaired: [], throttles: new Map(), delays: new Map(), visibility: new LaunchVisibility(), templateGroups: new TemplateGroups(target), placementGroups: undefined, launching: new Set() };
  const server = createServer((req, res) => {
    handle(state, req, res).catch((e: unknown) => {
      send(res, 502, 'text/plain', `fault proxy: ${e instanceof Error ? e.message : String(e)}`);
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    actions: state.actions,
    requests: state.requests,
    failCapacity: (fault) => {
      state.faults.push(fault);
      return () => { state.faults = state.faults.filter((f) => f !== fault); };
    },
    throttle: (action, times, code = 'RequestLimitExceeded') => {
      state.throttles.set(action, { left: times, code, status: 503 });
    },
    setSpotPrices: (price) => {
      state.spotPrice = price;
    },
    setEc2Prices: (prices) => {
      state.prices = prices;
      state.spotPrice = prices === undefined ? undefined : (type, zone) => prices.spot(type, zone);
    },
    fleetChoices: state.choices,
    setImpaired: (impairments) => {
      state.impaired = impairments;
    },
    failAction: (action, fault) => {
      state.throttles.set(action, { left: fault.times, code: fault.code, status: fault.status });
    },
    slow: (action, delay) => {
      state.delays.set(action, { left: delay.times, ms: delay.ms });
    },
    lagLaunches: (ms) => {
      state.visibility.setLag(ms);
    },
    setPlacementGroups: (groups) => {
      state.placementGroups = groups;
    },
    clear: () => {
      state.visibility.setLag(0);
      state.faults = [];
      state.throttles.clear();
      state.delays.clear();
    },
    stop: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => {
          done();
        });
      }),
  };
}
