import type { CloudProvider, LaunchedInstance } from '../../domain/cloud/cloud-provider.js';
import { ignoreNotFound } from '../../domain/cloud/errors.js';
import type { Node } from '../../domain/core/node.js';
import type { ReconcileResult } from '../runtime/controller-runner.js';
import type { EventRecorder } from '../ports/events.js';
import type { NodeApi } from '../ports/cluster-ports.js';
import { nodesByProviderId } from '../state/node-readiness.js';
import type { LifecycleMetrics } from '../metrics.js';
import type { NodeClaimStore } from '../ports/nodeclaim-store.js';
import { reportKept } from './gc-keep.js';
import { OptionsController, type ControllerOptions } from '../runtime/options-controller.js';

export interface OrphanInstanceGcOptions extends ControllerOptions {
  readonly cloud: Pick<CloudProvider, 'list' | 'delete'>;
  readonly store: Pick<NodeClaimStore, 'list'>;
  /** The Nodes: an instance that registered one is kept and reported, not terminated. */
  readonly nodes: Pick<NodeApi, 'listNodes'>;
  /** Where the Event saying why an instance was kept goes (on its Node). */
  readonly recorder?: EventRecorder;
  /** Instances younger than this are kept (Karpenter: 30 s), see below. */
  readonly minAgeMs?: number;
  readonly metrics?: LifecycleMetrics;
  /** Karpenter requeues every 10 s for the first 20 passes, then every 2 min. */
  readonly fastIntervalMs?: number;
  readonly slowIntervalMs?: number;
}

const fastPasses = 20;

/** How often orphaned instances are looked for once the first passes after start (10 s apart) are done. */
export const orphanInstanceGcPeriodMs = 120_000;

/**
 * Karpenter AWS's nodeclaim/garbagecollection: terminates instances carrying our tags that no
 * NodeClaim holds (a crash between CreateFleet and the status write, or a NodeClaim deleted by hand
 * with its finalizer stripped). The NodeClaims are listed *after* the instances, and an instance
 * counts as held by its providerID, or by its NodeClaim-name tag while that NodeClaim names no instance
 * yet, so an instance whose NodeClaim status is still being written is never mistaken for an orphan;
 * the minimum age covers list lag.
 *
 * List returns this cluster's instances launched through the shared API, Karpenter's included, and
 * every one of them is held by a NodeClaim in a cluster that was taken over. An instance that no
 * NodeClaim holds but that registered a Node is kept, with an Event on the Node and a counter: its
 * NodeClaim was removed by hand, and terminating the instance under running pods is a person's call.
 */
export class OrphanInstanceGc extends OptionsController<OrphanInstanceGcOptions> {
  readonly name = 'gc.instances';
  #passes = 0;

  async reconcile(): Promise<ReconcileResult> {
    const instances = await this.options.cloud.list();
    const claims = await this.options.store.list();
    const heldIds = new Set(claims.map((c) => c.status?.providerID ?? '').filter((id) => id !== ''));
    // The name tag holds an instance only while its NodeClaim has recorded none: once the status names one, a second
    // instance with the same tag is a launch whose result was lost (a crash after CreateFleet, then a relaunch).
    const heldNames = new Set(claims.filter((c) => (c.status?.providerID ?? '') === '').map((c) => c.metadata.name ?? ''));
    const now = this.options.clock.now();
    const minAge = this.options.minAgeMs ?? 30_000;
    const orphans = instances.filter((instance) => {
      if (heldIds.has(instance.providerID)) return false;
      if (instance.nodeClaimName !== undefined && heldNames.has(instance.nodeClaimName)) return false;
      return isLive(instance) && now - instance.launchTime >= minAge;
    });
    const nodes = orphans.length === 0 ? new Map<string, Node>() : nodesByProviderId(await this.options.nodes.listNodes());
    for (const instance of orphans) {
      const node = nodes.get(instance.providerID);
      if (node === undefined) await this.#terminate(instance);
      else this.#keep(instance, node);
    }
    this.#passes += 1;
    const fast = this.#passes <= fastPasses;
    return { requeueAfterMs: fast ? (this.options.fastIntervalMs ?? 10_000) : (this.options.slowIntervalMs ?? orphanInstanceGcPeriodMs) };
  }

  #keep(instance: LaunchedInstance, node: Node): void {
    const name = node.metadata.name ?? '';
    const uid = node.metadata.uid;
    reportKept(
      { ...this.options, controller: this.name },
      { kind: 'Node', apiVersion: 'v1', name, ...(uid === undefined ? {} : { uid }) },
      'node_exists',
      `no NodeClaim holds instance ${instance.providerID}, but it registered this Node; not terminated (delete the Node to let it go)`,
    );
  }

  async #terminate(instance: LaunchedInstance): Promise<void> {
    try {
      await this.options.cloud.delete(instance.providerID);
    } catch (e: unknown) {
      ignoreNotFound(e);
    }
    this.options.metrics?.garbageCollected.inc({ kind: 'instance' });
    this.log.info(
      { component: this.name, providerId: instance.providerID, nodeClaim: instance.nodeClaimName },
      'terminated instance no nodeclaim holds',
    );
  }
}

function isLive(instance: LaunchedInstance): boolean {
  return instance.state !== 'shutting-down' && instance.state !== 'terminated';
}
