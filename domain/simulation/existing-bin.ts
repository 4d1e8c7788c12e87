import type { Pod } from '../core/pod.js';
import { firstUnmetKey } from '../requirements/requirements.js';
import { firstUntoleratedTaint, describeTaint } from '../taints.js';
import { hostPortConflict, type Bin, type PlacementContext, type Rejection } from './placement-context.js';
import type { PodShape } from './pod-shape.js';
import type { ShapeVariant } from './relaxation.js';
import type { SnapshotNode } from './simulation-input.js';
import type { StandingNode } from './standing-cluster.js';
import { domainVerdict } from './domain-rules.js';

/** An existing or in-flight node: fixed labels, taints and room. */
export class ExistingBin implements Bin {
  readonly name: string;
  readonly node: SnapshotNode;
  readonly pods: Pod[] = [];
  private readonly free: Record<string, number>;
  /** The standing node's ports until a placed pod adds one (copied then, so the standing cluster stays as it was). */
  private hostPorts: ReadonlySet<string>;
  /** The label keys whose value depends on which instance type the planned node launches as. */
  private readonly launchVarying: ReadonlySet<string>;

  constructor(standing: StandingNode) {
    this.node = standing.node;
    this.name = standing.node.name;
    this.free = { ...standing.free };
    this.hostPorts = standing.hostPorts;
    this.launchVarying = standing.launchVarying;
  }

  domainOf(key: string): string | undefined {
    return this.node.labels[key];
  }

  isFull(minCpu: number, minMemory: number): boolean {
    return (this.free['cpu'] ?? 0) < minCpu || (this.free['memory'] ?? 0) < minMemory || (this.free['pods'] ?? 0) < 1;
  }

  private resourceRejection(shape: PodShape): string | undefined {
    if (shape.cpu > (this.free['cpu'] ?? 0)) return 'too little cpu';
    if (shape.memory > (this.free['memory'] ?? 0)) return 'too little memory';
    if (1 > (this.free['pods'] ?? 0)) return 'too few pod slots';
    for (const [name, amount] of shape.extended) if (amount > (this.free[name] ?? 0)) return `too little ${name}`;
    return undefined;
  }

  private staticRejection(shape: PodShape, variant: ShapeVariant): string | undefined {
    const resources = this.resourceRejection(shape);
    if (resources !== undefined) return resources;
    if (this.node.labels['node.kubernetes.io/unschedulable'] === 'true') return 'unschedulable';
    // The extender's filter refuses a pod a planned node dearer than its cap, so the plan must not put it there.
    const cap = shape.steering.maxPricePerHour;
    if (cap !== undefined && (this.node.pricePerHour ?? 0) > cap) return `price ${String(this.node.pricePerHour)}/h above the pod's maximum`;
    const taint = firstUntoleratedTaint(shape.tolerations, this.node.taints, variant.allowPreferNoSchedule);
    if (taint !== undefined) return `taint ${describeTaint(taint)} not tolerated`;
    const key = firstUnmetKey(variant.requirements, (k) => this.node.labels[k]) ?? this.unmetAtLaunch(variant);
    if (key !== undefined) return `node label ${key} does not match`;
    const port = hostPortConflict(this.hostPorts, shape.hostPorts);
    return port === undefined ? undefined : `host port ${port} in use`;
  }

  /** A requirement on a label the launch decides must hold for every type the planned node may launch as. */
  private unmetAtLaunch(variant: ShapeVariant): string | undefined {
    if (!someKeyIn(variant.requirements, this.launchVarying)) return undefined;
    for (const labels of this.node.launchLabels ?? []) {
      const key = firstUnmetKey(variant.requirements, (k) => labels[k] ?? this.node.labels[k]);
      if (key !== undefined) return `${key} (at launch)`;
    }
    return undefined;
  }

  tryAdd(shape: PodShape, variant: ShapeVariant, ctx: PlacementContext): Rejection | undefined {
    const reason = this.staticRejection(shape, variant);
    if (reason !== undefined) return { reason, permanent: true };
    for (const constraints of ctx.topology.constraints(shape, variant)) {
      const domain = this.node.labels[constraints.key];
      if (domain === undefined) {
        if (constraints.terms.some((t) => t.spec.kind !== 'antiAffinity')) return { reason: `node has no ${constraints.key} label`, permanent: true };
        continue;
      }
      const verdict = domainVerdict(constraints, domain, (t) => ctx.universe(t, variant), ctx.keepCarriers);
      if (verdict !== 'allowed') return { reason: `topology on ${constraints.key}`, permanent: verdict === 'permanent' };
    }
    ctx.topology.record(shape, variant, (k) => this.node.labels[k], (t) => ctx.universe(t, variant));
    for (const [k, v] of Object.entries(shape.requests)) this.free[k] = (this.free[k] ?? 0) - v;
    if (shape.hostPorts.length > 0) this.hostPorts = new Set([...this.hostPorts, ...shape.hostPorts]);
    return undefined;
  }
}

function someKeyIn(requirements: ShapeVariant['requirements'], keys: ReadonlySet<string>): boolean {
  if (keys.size === 0) return false;
  for (const key of requirements.keys()) if (keys.has(key)) return true;
  return false;
}
