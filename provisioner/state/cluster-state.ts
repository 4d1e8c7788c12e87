import { foundUnschedulable } from '../../domain/core/pod-scheduled.js';
import type { NodeClaim } from '../../domain/api/nodeclaim-schema.js';
import type { NodePool } from '../../domain/api/nodepool-schema.js';
import type { EC2NodeClass } from '../../domain/api/ec2nodeclass-schema.js';
import type { Node } from '../../domain/core/node.js';
import type { Pod } from '../../domain/core/pod.js';
import type { PodDisruptionBudget } from '../../domain/core/pod-disruption-budget.js';
import type { DaemonSet } from '../../domain/core/workloads.js';
import type { PersistentVolume, PersistentVolumeClaim, StorageClass } from '../../domain/core/storage.js';
import type { ProvisioningRequest } from '../../domain/provisioning-requests/provisioning-request.js';
import { DraObjects, type DraKind, type DraObject } from './dra-objects.js';
import { objectKey, podKey } from '../../domain/core/object-key.js';
import { podRequests } from '../../domain/pod-requests.js';
import { planNodeAnnotation } from '../../domain/product-keys.js';
import type { PodRequestsFn } from '../../domain/resource-sums.js';
import type { Amounts, ClusterEvent, ClusterModel, ModelNode, ModelPlan, VirtualNodePlan } from '../index.js';
import { planOfNode } from './plan-annotation.js';
import { daemonRoomOf } from './daemon-room.js';
import { digestNode, freeOn, type NodeDigest } from './node-entry.js';
import { NodeMarks } from './node-marks.js';
import { NodeClaimIndex } from './nodeclaim-index.js';
import { CapacityBookings } from './capacity-bookings.js';
import { PdbIndex } from './pdb-index.js';
import { PlacementIntents, workloadOf } from './placement-intents.js';
import { PlanIndex } from './plan-index.js';
import { PlacementRefusals } from './placement-refusals.js';
import { ResolvedPlacementGroups } from './placement-groups.js';
import { PodAccounting } from './pod-accounting.js';
import { RoomCalculator } from './room.js';
import { TentativeBinds } from './tentative-binds.js';

/** Kinds kept as objects only (no per-node accounting). */
export type StoredKind = 'nodepool' | 'ec2nodeclass' | 'daemonset' | 'pvc' | 'pv' | 'storageclass' | 'provisioningrequest' | DraKind;
export type ObjectKind = 'pod' | 'node' | 'nodeclaim' | 'pdb' | StoredKind;
type ChangeListener = (kind: ObjectKind | 'plan', key: string) => void;
interface Meta { readonly metadata: { readonly namespace?: string; readonly name?: string } }
/** The objects of the stored kinds. */
export type StoredObject = NodePool | EC2NodeClass | DaemonSet | PersistentVolumeClaim | PersistentVolume | StorageClass | ProvisioningRequest | DraObject;

/**
 * The one picture of the cluster that every component reads: planner, extender, lifecycle, GC and disruption.
 * Fed by the informers (one trimmed copy of each object) and by the provisioner's own plans and marks. Per-node
 * usage, the pods on each node and the pending pods are kept current on every delta, so no reader recomputes
 * them. Writes go through the API server; what comes back through the watch lands here.
 */
export class ClusterState implements ClusterModel {
  readonly pods = new Map<string, Pod>();
  readonly nodes = new Map<string, Node>();
  readonly nodePools = new Map<string, NodePool>();
  readonly nodeClasses = new Map<string, EC2NodeClass>();
  readonly daemonSets = new Map<string, DaemonSet>();
  /** By "namespace/name". */
  readonly claims = new Map<string, PersistentVolumeClaim>();
  readonly volumes = new Map<string, PersistentVolume>();
  readonly storageClasses = new Map<string, StorageClass>();
  /** ProvisioningRequests (`autoscaling.x-k8s.io/v1`) by "namespace/name"; none while their CRD is not installed. */
  readonly provisioningRequests = new Map<string, ProvisioningRequest>();
  /** DRA's objects (`resource.k8s.io/v1`); none while the API is off or the gate is. */
  readonly dra = new DraObjects();
  /** Each stored kind's map, for upsertObject and removeObject. */
  readonly #stored: Readonly<Record<StoredKind, Map<string, unknown>>> = {
    nodepool: this.nodePools, ec2nodeclass: this.nodeClasses, daemonset: this.daemonSets, pvc: this.claims, pv: this.volumes, storageclass: this.storageClasses, provisioningrequest: this.provisioningRequests, ...this.dra.byKind,
  };
  readonly marks = new NodeMarks((name) => { this.#refreshNode(name); });
  readonly pdbs = new PdbIndex();
  readonly placements = new PlacementIntents();
  /** Where passes put pending pods on existing nodes, and what kube-scheduler refused (placement-refusals.ts). */
  readonly refusals = new PlacementRefusals();
  /** Each EC2NodeClass's resolved placement group, kept in memory as Karpenter keeps it (placement-groups.ts). */
  readonly placementGroups = new ResolvedPlacementGroups();
  /** The room best-effort-atomic ProvisioningRequests booked, from the requests themselves (capacity-bookings.ts). */
  readonly bookings = new CapacityBookings((name) => this.podsOn(name), (pod) => this.requestsFor(pod));
  readonly #claims = new NodeClaimIndex();
  readonly #plans = new PlanIndex();
  readonly #accounting: PodAccounting;
  readonly #digests = new Map<string, NodeDigest>();
  /** What the extender reads of each node, built once per node or mark change (filter asks for hundreds a call). */
  readonly #modelNodes = new Map<string, ModelNode>();
  readonly #room: RoomCalculator;
  readonly #tentative = new TentativeBinds();
  readonly #changeListeners = new Set<ChangeListener>();
  #synced = false;

  /** `earlySchedulers`: plan pods of these schedulers before kube-scheduler marks them Unschedulable (pending-pods.ts). */
  constructor(requestsOf: PodRequestsFn = podRequests, options: { readonly earlySchedulers?: ReadonlySet<string> } = {}) {
    this.#accounting = new PodAccounting(requestsOf, (name) => { this.#refreshNode(name); }, options.earlySchedulers);
    this.#room = new RoomCalculator(this.#accounting, this.#plans, (name) => this.#digests.get(name)?.allocatable);
  }

  get isSynced(): boolean { return this.#synced; }

  get nodeCount(): number { return this.nodes.size; }

  get podCount(): number { return this.#accounting.size; }

  /** The plans behind the virtual nodes, by virtual node name. */
  get plans(): ReadonlyMap<string, VirtualNodePlan> {
    return this.#plans.plans;
  }

  /** NodeClaims by name. */
  get nodeClaims(): ReadonlyMap<string, NodeClaim> {
    return this.#claims.byName;
  }

  markSynced(): void {
    this.#synced = true;
  }

  /** Called on every change of any kind; the provisioner uses it to trigger batches and wake loops. */
  onChange(listener: ChangeListener): () => void {
    this.#changeListeners.add(listener);
    return () => { this.#changeListeners.delete(listener); };
  }

  /** Applies one delta as an informer would deliver it (tests and replays). */
  apply(event: ClusterEvent): void {
    switch (event.kind) {
      case 'node-upserted': this.upsertNode(event.node); return;
      case 'node-deleted': this.removeNode({ metadata: { name: event.name } }); return;
      case 'pod-upserted': this.upsertPod(event.pod); return;
      case 'pod-deleted': this.removePod({ metadata: { namespace: event.namespace, name: event.name } }); return;
      case 'plan-upserted': this.upsertPlan(event.plan); return;
      case 'plan-deleted': this.removePlan(event.nodeName); return;
      case 'synced': this.markSynced(); return;
    }
  }

  upsertPod(pod: Pod): void {
    const key = podKey(pod.metadata.namespace, pod.metadata.name);
    // A pending pod is written by kube-scheduler's verdicts (and seldom anything else): a new version still marked
    // Unschedulable is a new attempt that found no node. The message is not kept (it is long, and pods are many).
    const before = this.pods.get(key);
    if (foundUnschedulable(pod) && (before === undefined || before.metadata.resourceVersion !== pod.metadata.resourceVersion)) this.refusals.sawUnschedulable(key, Date.now());
    this.pods.set(key, pod);
    this.#accounting.upsert(key, pod);
    if ((pod.spec.nodeName ?? '') !== '') {
      this.refusals.forget(key);
      this.#tentative.clear(key);
    }
    this.#changed('pod', key);
  }

  removePod(pod: Meta): void {
    const key = podKey(pod.metadata.namespace, pod.metadata.name);
    this.pods.delete(key);
    this.refusals.forget(key);
    this.#tentative.clear(key);
    this.#accounting.release(key);
    this.#accounting.remove(key);
    this.#changed('pod', key);
  }

  upsertNode(node: Node): void {
    const name = node.metadata.name ?? '';
    const previous = this.#digests.get(name);
    if (previous !== undefined) this.#plans.forgetLaunched(name, previous.launchedFor);
    // Heartbeats update a virtual node every few seconds with the same plan: parse it only when it changed.
    const samePlan = this.#plans.plans.has(name) && this.nodes.get(name)?.metadata.annotations?.[planNodeAnnotation] === node.metadata.annotations?.[planNodeAnnotation];
    this.nodes.set(name, node);
    const digest = digestNode(node);
    if (digest !== undefined) {
      this.#digests.set(name, digest);
      this.#plans.noteLaunched(name, digest.launchedFor);
    }
    this.#refreshNode(name);
    this.#changed('node', name);
    // The plan lives on the virtual node, so every process that watches nodes knows every plan.
    const plan = samePlan ? undefined : planOfNode(node);
    if (plan !== undefined) this.upsertPlan(plan);
  }

  removeNode(node: Meta): void {
    const name = node.metadata.name ?? '';
    this.#plans.forgetLaunched(name, this.#digests.get(name)?.launchedFor);
    this.nodes.delete(name);
    this.#digests.delete(name);
    this.#modelNodes.delete(name);
    this.marks.forget(name);
    this.#changed('node', name);
    this.removePlan(name);
  }

  upsertPlan(plan: VirtualNodePlan): void {
    const before = this.#plans.plans.get(plan.nodeName)?.materializedNode;
    this.#plans.upsert(plan);
    if (before !== undefined && before !== plan.materializedNode) this.#refreshNode(before);
    if (plan.materializedNode !== undefined) this.#refreshNode(plan.materializedNode);
    this.#changed('plan', plan.nodeName);
  }

  removePlan(nodeName: string): void {
    const real = this.#plans.plans.get(nodeName)?.materializedNode;
    if (!this.#plans.remove(nodeName)) return;
    if (real !== undefined) this.#refreshNode(real);
    this.#changed('plan', nodeName);
  }

  upsertNodeClaim(claim: NodeClaim): void {
    this.#claims.upsert(claim);
    // Its startup taints decide which daemons its node waits for.
    if (claim.status?.nodeName !== undefined) this.#refreshNode(claim.status.nodeName);
    this.#changed('nodeclaim', claim.metadata.name ?? '');
  }

  removeNodeClaim(claim: Meta): void {
    this.#claims.remove(claim.metadata.name ?? '');
    this.#changed('nodeclaim', claim.metadata.name ?? '');
  }

  upsertPdb(pdb: PodDisruptionBudget): void {
    this.pdbs.upsert(pdb);
    this.#changed('pdb', objectKey(pdb.metadata));
  }

  removePdb(pdb: Meta): void {
    this.pdbs.remove(pdb.metadata);
    this.#changed('pdb', objectKey(pdb.metadata));
  }

  upsertObject(kind: StoredKind, object: StoredObject): void {
    const key = objectKey(object.metadata);
    const map = this.#stored[kind];
    // The DaemonSet controller writes its status on every pod it makes; only a new spec moves the nodes' daemon room.
    const respecified = kind === 'daemonset' && JSON.stringify((map.get(key) as DaemonSet | undefined)?.spec) !== JSON.stringify((object as DaemonSet).spec);
    map.set(key, object);
    if (kind === 'provisioningrequest') this.bookings.upsert(object as ProvisioningRequest);
    if (respecified) this.#refreshAllNodes();
    this.#changed(kind, key);
  }

  removeObject(kind: StoredKind, object: Meta): void {
    const key = objectKey(object.metadata);
    this.#stored[kind].delete(key);
    if (kind === 'provisioningrequest') this.bookings.remove(key);
    if (kind === 'daemonset') this.#refreshAllNodes();
    this.#changed(kind, key);
  }

  // ---- queries -------------------------------------------------------------------------------------------

  node(name: string): ModelNode | undefined {
    return this.#modelNodes.get(name);
  }

  /** A DaemonSet changed: every node's daemon room may have. Rare (a DaemonSet is applied or edited). */
  #refreshAllNodes(): void {
    for (const name of this.#digests.keys()) this.#refreshNode(name);
  }

  #refreshNode(name: string): void {
    const digest = this.#digests.get(name);
    if (digest === undefined) return;
    // One literal shape for every entry: filter reads these fields for hundreds of nodes a call.
    this.#modelNodes.set(name, {
      name: digest.name, isVirtual: digest.isVirtual, closedReason: digest.ownClosedReason ?? this.marks.closedReason(name),
      allocatable: digest.allocatable, free: freeOn(digest.allocatable, this.#accounting.usage(name), this.#accounting.reservedOn(name)),
      daemonReserved: daemonRoomOf(digest, this.nodes.get(name), { daemonSets: this.daemonSets, podsOn: () => this.podsOn(name), claim: () => this.nodeClaimOfNode(name) }),
      capacityType: digest.capacityType, nodePool: digest.nodePool,
      instanceFamily: digest.instanceFamily, launchedFor: digest.launchedFor ?? this.#plans.materializedAs(name),
    });
  }

  plan(nodeName: string): ModelPlan | undefined {
    return this.#plans.entry(nodeName);
  }

  /** The virtual node whose plan holds the pod, if any. */
  planOfPod(key: string): string | undefined {
    return this.#plans.planOfPod(key);
  }

  boundNodeOf(key: string): string | undefined {
    return this.#accounting.boundNodeOf(key);
  }

  usage(nodeName: string): Amounts {
    return this.#accounting.usage(nodeName);
  }

  pod(key: string): Pod | undefined {
    return this.pods.get(key);
  }

  requestsOf(key: string): Amounts | undefined {
    return this.#accounting.requestsOf(key);
  }

  requestsFor(pod: Pod): Amounts {
    return this.#accounting.requestsFor(pod);
  }

  plannedPlacement(pod: Pod): ReadonlySet<string> {
    return this.placements.isEmpty ? noPlaces : this.placements.destinations(workloadOf(pod, this.requestsFor(pod)));
  }

  notePlaced(podKey: string, nodeName: string): void {
    const pod = this.pods.get(podKey);
    if (pod !== undefined && !this.placements.isEmpty) this.placements.placed(workloadOf(pod, this.requestsFor(pod)), nodeName);
  }

  /** The running pods bound to the node (not finished), from memory. */
  podsOn(nodeName: string): Pod[] {
    return this.#podsOf(this.#accounting.podsOn(nodeName));
  }

  /** Names of the nodes running pods are bound to (Node objects or not). */
  nodesWithPods(): IterableIterator<string> {
    return this.#accounting.nodesWithPods();
  }

  /** Pods kube-scheduler found no node for (PodScheduled=False/Unschedulable), from memory. */
  pendingPods(): Pod[] {
    return this.#podsOf(this.#accounting.pending());
  }

  #podsOf(keys: Iterable<string>): Pod[] {
    const out: Pod[] = [];
    for (const key of keys) {
      const pod = this.pods.get(key);
      if (pod !== undefined) out.push(pod);
    }
    return out;
  }

  isPending(key: string): boolean {
    return this.#accounting.pending().has(key);
  }

  nodeClaimByProviderId(providerId: string): NodeClaim | undefined {
    return this.#claims.byProviderId(providerId);
  }

  nodeClaimByInstanceId(instanceId: string): NodeClaim | undefined {
    return this.#claims.byInstanceId(instanceId);
  }

  /** The NodeClaim behind a Node (by providerID, then by status.nodeName), if any. */
  nodeClaimOfNode(nodeName: string): NodeClaim | undefined {
    const node = this.nodes.get(nodeName);
    return this.#claims.forNode(nodeName, node?.spec?.providerID);
  }

  roomLeft(entry: ModelPlan, nodeName: string): Record<string, number> {
    return this.#room.roomLeft(entry, nodeName);
  }

  roomLeftOnLaunched(realName: string, virtualName: string, entry: ModelPlan): Record<string, number> {
    return this.#room.roomLeftOnLaunched(realName, virtualName, entry);
  }

  reservedOn(nodeName: string): Amounts {
    return this.#accounting.reservedOn(nodeName);
  }

  /** Whether a bind of the pod is in flight (held on the node it goes to until the watch shows it bound). */
  isReserved(key: string): boolean {
    return this.#accounting.isReserved(key);
  }

  materializationOf(node: ModelNode): readonly [string, ModelPlan] | undefined {
    const entry = node.launchedFor === undefined ? undefined : this.#plans.entry(node.launchedFor);
    return node.launchedFor === undefined || entry === undefined ? undefined : [node.launchedFor, entry];
  }

  reserve(key: string, nodeName: string, requests: Amounts): void {
    this.#tentative.clear(key);
    this.#accounting.reserve(key, nodeName, requests);
  }

  noteCandidates(key: string, nodeNames: readonly string[], requests: Amounts): void { this.#tentative.note(key, nodeNames, requests); }

  forgetCandidates(key: string): void { this.#tentative.clear(key); }

  noteNoRoomInPlan(key: string, planNode: string): void { this.refusals.noRoomOn(key, planNode); }

  tentativeOn(nodeName: string): Amounts | undefined { return this.#tentative.on(nodeName); }

  release(key: string): void {
    this.#accounting.release(key);
  }

  #changed(kind: ObjectKind | 'plan', key: string): void {
    for (const listener of this.#changeListeners) listener(kind, key);
  }
}

/** prioritize asks for every pod; with no consolidation in flight the answer is this one empty set. */
const noPlaces: ReadonlySet<string> = new Set();
