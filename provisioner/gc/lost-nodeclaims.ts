import type { NodeClaim } from '../../domain/api/nodeclaim-schema.js';
import type { Node } from '../../domain/core/node.js';
import type { CloudProvider } from '../../domain/cloud/cloud-provider.js';
import { isNodeClaimNotFoundError } from '../../domain/cloud/errors.js';
import { parseProviderId } from '../../domain/cloud/provider-id.js';
import type { ReconcileResult } from '../runtime/controller-runner.js';
import type { EventRecorder, EventTarget } from '../ports/events.js';
import { conditionTypes, findCondition, transitionTimeMs } from '../../domain/api/status-conditions.js';
import type { NodeApi } from '../ports/cluster-ports.js';
import { isNodeReady, nodesByProviderId } from '../state/node-readiness.js';
import { disruptedLabels, type LifecycleMetrics } from '../metrics.js';
import type { NodeClaimStore } from '../ports/nodeclaim-store.js';
import { reportKept, type GcKeepReason } from './gc-keep.js';
import { OptionsController, type ControllerOptions } from '../runtime/options-controller.js';

export interface LostNodeClaimGcOptions extends ControllerOptions {
  readonly store: Pick<NodeClaimStore, 'list' | 'delete'>;
  readonly cloud: Pick<CloudProvider, 'list' | 'get'>;
  /** The Nodes, for Karpenter's guard: a claim whose Node is still Ready is kept. */
  readonly nodes: Pick<NodeApi, 'listNodes'>;
  /** Where the Event saying why a claim was kept goes. */
  readonly recorder?: EventRecorder;
  /**
   * A NodeClaim launched less than this long ago is kept even if List does not show its instance
   * yet: EC2's describe calls are eventually consistent (default 30 s).
   */
  readonly minLaunchedAgeMs?: number;
  readonly metrics?: LifecycleMetrics;
  /** Karpenter core runs this every 2 min. */
  readonly intervalMs?: number;
}

/** What one claim missing from List turned out to be. */
type Verdict = { readonly lost: true } | { readonly lost: false; readonly reason: GcKeepReason; readonly message: string };

/** How often launched NodeClaims are checked for an instance that is gone. */
export const lostNodeClaimGcPeriodMs = 120_000;

/**
 * Karpenter core's nodeclaim/garbagecollection: a launched NodeClaim whose instance is gone
 * (terminated outside our control, spot reclaimed) is deleted, so termination cleans up its Node
 * and the plan can replace it.
 *
 * List only narrows the search. Absence from it proves nothing: the listing may be filtered (a
 * Karpenter cluster taken over, an instance tagged by another tool), partial or failed, and
 * deleting on that evidence would drain healthy nodes. Each claim List misses is asked about by
 * its own instance id (batched into one DescribeInstances); only an instance EC2 reports gone,
 * behind a Node that is not Ready, counts as a lost launch. Every other claim is kept, with an
 * Event on it and a counter saying why.
 */
export class LostNodeClaimGc extends OptionsController<LostNodeClaimGcOptions> {
  readonly name = 'gc.nodeclaims';

  async reconcile(): Promise<ReconcileResult> {
    // Claims first, then instances: an instance launched between the two reads is then still seen.
    const claims = (await this.options.store.list()).filter((c) => this.#isOldLaunched(c));
    if (claims.length > 0) {
      const live = await this.#listed();
      const missing = claims.filter((c) => !live.has(c.status?.providerID ?? ''));
      if (missing.length > 0) await this.#collect(missing);
    }
    return { requeueAfterMs: this.options.intervalMs ?? lostNodeClaimGcPeriodMs };
  }

  /** The listed provider IDs; empty when listing failed, so that every claim is checked by its own id. */
  async #listed(): Promise<ReadonlySet<string>> {
    try {
      return new Set((await this.options.cloud.list()).map((i) => i.providerID));
    } catch (e: unknown) {
      this.log.warn({ component: this.name, err: e }, 'listing instances failed; checking each nodeclaim\'s instance instead');
      return new Set();
    }
  }

  async #collect(missing: readonly NodeClaim[]): Promise<void> {
    const verdicts = await Promise.all(missing.map((c) => this.#verdict(c.status?.providerID ?? '')));
    const nodes: ReadonlyMap<string, Node> = verdicts.some((v) => v.lost) ? nodesByProviderId(await this.options.nodes.listNodes()) : new Map();
    for (const [index, claim] of missing.entries()) {
      const verdict = verdicts[index] ?? { lost: false, reason: 'instance_check_failed', message: 'no verdict' };
      const final = verdict.lost ? readyGuard(verdict, nodes.get(claim.status?.providerID ?? ''), claim) : verdict;
      if (final.lost) await this.#delete(claim);
      else this.#keep(claim, final.reason, final.message);
    }
  }

  async #verdict(providerID: string): Promise<Verdict> {
    if (parseProviderId(providerID) === undefined) {
      return { lost: false, reason: 'foreign_provider_id', message: `provider ID ${providerID} is not an EC2 instance; garbage collection leaves this NodeClaim alone` };
    }
    try {
      const instance = await this.options.cloud.get(providerID);
      return { lost: false, reason: 'instance_not_listed', message: `instance ${providerID} is ${instance.state} but was not listed (a filtered or partial listing); kept` };
    } catch (e: unknown) {
      if (isNodeClaimNotFoundError(e)) return { lost: true };
      const cause = e instanceof Error ? e.message : String(e);
      return { lost: false, reason: 'instance_check_failed', message: `instance ${providerID} was not listed and checking it failed (${cause}); kept until EC2 confirms it is gone` };
    }
  }

  #isOldLaunched(claim: NodeClaim): boolean {
    if (claim.metadata.deletionTimestamp !== undefined) return false;
    if ((claim.status?.providerID ?? '') === '') return false;
    const launched = findCondition(claim, conditionTypes.launched);
    if (launched?.status !== 'True') return false;
    const at = transitionTimeMs(launched) ?? 0;
    return this.options.clock.now() - at >= (this.options.minLaunchedAgeMs ?? 30_000);
  }

  #keep(claim: NodeClaim, reason: GcKeepReason, message: string): void {
    reportKept({ ...this.options, controller: this.name }, targetOf(claim), reason, message);
  }

  async #delete(claim: NodeClaim): Promise<void> {
    await this.options.store.delete(claim.metadata.name ?? '');
    this.options.metrics?.garbageCollected.inc({ kind: 'nodeclaim' });
    this.options.metrics?.disrupted.inc(disruptedLabels(claim, 'instance_gone', 'forceful'));
    this.log.info(
      { component: this.name, nodeClaim: claim.metadata.name, providerId: claim.status?.providerID },
      'deleted nodeclaim whose instance is gone',
    );
  }
}

/** Karpenter's guard: an instance reported gone behind a Node that is still Ready is not yet a lost launch. */
function readyGuard(verdict: Verdict, node: Node | undefined, claim: NodeClaim): Verdict {
  if (node === undefined || !isNodeReady(node)) return verdict;
  return { lost: false, reason: 'node_ready', message: `EC2 reports instance ${claim.status?.providerID ?? ''} gone but Node ${node.metadata.name ?? ''} is still Ready; kept until it is not` };
}

function targetOf(claim: NodeClaim): EventTarget {
  const uid = claim.metadata.uid;
  return { kind: 'NodeClaim', apiVersion: 'karpenter.sh/v1', name: claim.metadata.name ?? '', ...(uid === undefined ? {} : { uid }) };
}
