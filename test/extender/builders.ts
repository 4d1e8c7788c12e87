// Fixture builders for extender tests: full v1 objects shaped like what kube-scheduler and informers deliver.
import type { Node } from '../../domain/core/node.js';
import type { Pod } from '../../domain/core/pod.js';
import { launchableLabel, launchableTaint } from '../../domain/product-keys.js';
import { Registry } from 'prom-client';
import type { FastifyInstance } from 'fastify';
import { build } from '../../extender/app.js';
import { ClusterState } from '../../provisioner/state/cluster-state.js';
import type { BindTarget, Materializer, PodBinder, VirtualNodePlan } from '../../provisioner/index.js';

export interface PodOptions {
  name?: string;
  namespace?: string;
  cpu?: string;
  memory?: string;
  nodeName?: string;
  phase?: string;
  annotations?: Record<string, string>;
}

export function pod(options: PodOptions = {}): Pod {
  const name = options.name ?? 'web-0';
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: options.namespace ?? 'default',
      uid: `uid-${name}`,
      labels: { app: 'web' },
      ...(options.annotations === undefined ? {} : { annotations: options.annotations }),
    },
    spec: {
      containers: [{
        name: 'app',
        image: 'registry.k8s.io/pause:3.10',
        resources: { requests: { cpu: options.cpu ?? '500m', memory: options.memory ?? '512Mi' } },
      }],
      schedulerName: 'default-scheduler',
      ...(options.nodeName === undefined ? {} : { nodeName: options.nodeName }),
    },
    status: { phase: options.phase ?? 'Pending' },
  };
}

export interface NodeOptions {
  cpu?: string;
  memory?: string;
  pods?: string;
  labels?: Record<string, string>;
  unschedulable?: boolean;
  deleting?: boolean;
  taints?: { key: string; value?: string; effect: string }[];
  annotations?: Record<string, string>;
}

export function node(name: string, options: NodeOptions = {}): Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: { 'kubernetes.io/hostname': name, ...options.labels },
      ...(options.annotations === undefined ? {} : { annotations: options.annotations }),
      ...(options.deleting === true ? { deletionTimestamp: '2026-11-21T05:00:00Z' } : {}),
    },
    spec: {
      ...(options.unschedulable === true ? { unschedulable: true } : {}),
      ...(options.taints === undefined ? {} : { taints: options.taints }),
    },
    status: {
      allocatable: { cpu: options.cpu ?? '4', memory: options.memory ?? '16Gi', pods: options.pods ?? '110' },
      conditions: [{ type: 'Ready', status: 'True' }],
    },
  };
}

export function virtualNode(name: string, options: NodeOptions = {}): Node {
  return node(name, {
    ...options,
    labels: { [launchableLabel]: 'true', ...options.labels },
    taints: [{ ...launchableTaint }, ...(options.taints ?? [])],
  });
}

export function plan(nodeName: string, overrides: Partial<VirtualNodePlan> = {}): VirtualNodePlan {
  return {
    nodeName,
    nodePool: 'default',
    instanceTypes: ['m7i.xlarge'],
    pricePerHour: 0.2,
    capacityType: 'on-demand',
    zone: 'us-east-1a',
    assignedPods: [],
    room: { cpu: '3800m', memory: '15Gi', pods: '58' },
    ...overrides,
  };
}

/** kube-scheduler's ExtenderArgs in the nodeCacheCapable form (NodeNames only, Nodes null). */
export function extenderArgs(forPod: Pod, nodeNames: string[]): Record<string, unknown> {
  return { Pod: forPod, Nodes: null, NodeNames: nodeNames };
}

/** A PodBinder that records calls and can be told to fail, or to hold each bind until the test lets it land. */
export class FakeBinder implements PodBinder {
  readonly calls: BindTarget[] = [];
  failWith: Error | undefined;
  /** While true, each bind is on its way until `land()`. */
  holding = false;
  readonly #held: (() => void)[] = [];

  bind(target: BindTarget): Promise<void> {
    this.calls.push(target);
    if (this.failWith !== undefined) return Promise.reject(this.failWith);
    return this.holding ? new Promise((resolve) => this.#held.push(resolve)) : Promise.resolve();
  }

  /** The binds held so far land. */
  land(): void {
    for (const landed of this.#held.splice(0)) landed();
  }
}

/** A Materializer whose launches the test completes by hand, counting calls. */
export class FakeMaterializer implements Materializer {
  readonly calls: string[] = [];
  readonly #pending: { resolve: (v: { nodeName: string }) => void; reject: (e: Error) => void }[] = [];

  materialize(virtualNodeName: string): Promise<{ readonly nodeName: string }> {
    this.calls.push(virtualNodeName);
    return new Promise((resolve, reject) => this.#pending.push({ resolve, reject }));
  }

  complete(nodeName: string): void {
    for (const p of this.#pending.splice(0)) p.resolve({ nodeName });
  }

  fail(message: string): void {
    for (const p of this.#pending.splice(0)) p.reject(new Error(message));
  }

  get pendingCount(): number {
    return this.#pending.length;
  }
}

export interface Harness {
  app: FastifyInstance;
  view: ClusterState;
  binder: FakeBinder;
  materializer: FakeMaterializer;
  registry: Registry;
}

/** A built (never listening) extender over a view the test fills directly. */
export function harness(options: { readonly scaleInRank?: boolean } = {}): Harness {
  const view = new ClusterState();
  view.apply({ kind: 'synced' });
  const binder = new FakeBinder();
  const materializer = new FakeMaterializer();
  const registry = new Registry();
  const app = build({ view, binder, materializer, registry, logger: false, ...options });
  return { app, view, binder, materializer, registry };
}
