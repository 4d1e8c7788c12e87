// The worker thread behind WorkerSimulator: keeps a copy of the cluster as the last pass sent it and answers
// questions with the one simulation (domain/simulation/simulate.ts). Its only I/O is the message port.
import { parentPort } from 'node:worker_threads';
import type { InstanceType } from '../../../domain/instance-types/instance-type.js';
import type { SnapshotNode } from '../../../domain/simulation/simulation-input.js';
import { StandingCluster } from '../../../domain/simulation/standing-cluster.js';
import type { ConsolidationWorld } from '../../../domain/disruption/consolidation/consolidation-world.js';
import type { FromWorker, ToWorker, WireQuestion, WireResult } from './worker-protocol.js';
import { toWire } from './worker-protocol.js';
import { answer } from './simulator.js';

interface Copy {
  catalog: { id: number; types: InstanceType[] };
  readonly nodes: Map<string, SnapshotNode>;
  world: ConsolidationWorld | undefined;
  /** Free room, owners and domain counts of the nodes, kept between questions as the planner keeps its own. */
  readonly standing: StandingCluster;
}

const copy: Copy = { catalog: { id: -1, types: [] }, nodes: new Map(), world: undefined, standing: new StandingCluster() };

function ask(question: WireQuestion): WireResult {
  if (copy.world === undefined) throw new Error('no world was sent before the first question');
  return toWire(answer(copy.world, {
    without: new Set(question.without),
    pods: question.pods,
    ...(question.volumeRequirements === undefined ? {} : { volumeRequirements: new Map(question.volumeRequirements) }),
  }, copy.standing));
}

function receiveWorld(message: Extract<ToWorker, { kind: 'world' }>): void {
  if (message.catalog !== copy.catalog.id) throw new Error(`world for catalog ${String(message.catalog)}, but catalog ${String(copy.catalog.id)} was sent`);
  const nodes = message.order.map((name) => copy.nodes.get(name)).filter((n): n is SnapshotNode => n !== undefined);
  const { unavailableOfferings, volumeRequirements, ...rest } = message.rest;
  copy.world = {
    ...rest, nodes, instanceTypes: copy.catalog.types, unavailableOfferings: new Set(unavailableOfferings),
    ...(volumeRequirements === undefined ? {} : { volumeRequirements: new Map(volumeRequirements) }),
  };
}

function handle(message: ToWorker): FromWorker | undefined {
  switch (message.kind) {
    case 'types':
      // A new catalog (another id) starts over; the catalog's array stays one object, so compiledCatalog's cache holds.
      if (message.first || message.catalog !== copy.catalog.id) copy.catalog = { id: message.catalog, types: [] };
      copy.catalog.types.push(...message.types);
      return undefined;
    case 'nodes':
      for (const name of message.removes) copy.nodes.delete(name);
      for (const node of message.upserts) copy.nodes.set(node.name, node);
      return undefined;
    case 'world':
      receiveWorld(message);
      return undefined;
    case 'simulate':
      try {
        return { id: message.id, result: ask(message.question) };
      } catch (e) {
        return { id: message.id, error: e instanceof Error ? e.message : String(e) };
      }
  }
}

parentPort?.on('message', (message: ToWorker) => {
  const reply = handle(message);
  if (reply !== undefined) parentPort?.postMessage(reply);
});
