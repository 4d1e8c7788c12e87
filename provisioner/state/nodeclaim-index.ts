import type { NodeClaim } from '../../domain/api/nodeclaim-schema.js';
import { parseProviderId } from '../../domain/cloud/provider-id.js';

/**
 * NodeClaims by name, joined to their Nodes by providerID (Karpenter's join) and by status.nodeName, so "the
 * NodeClaim of this node" is a Map lookup for the lifecycle, disruption and interruption controllers.
 */
export class NodeClaimIndex {
  readonly byName = new Map<string, NodeClaim>();
  readonly #byProviderId = new Map<string, string>();
  readonly #byNodeName = new Map<string, string>();
  /** EC2 instance id (from the providerID) → name: interruption messages name instances, not nodes. */
  readonly #byInstanceId = new Map<string, string>();

  upsert(claim: NodeClaim): void {
    const name = claim.metadata.name ?? '';
    this.remove(name);
    this.byName.set(name, claim);
    const providerId = claim.status?.providerID;
    if (providerId !== undefined && providerId !== '') {
      this.#byProviderId.set(providerId, name);
      const instanceId = parseProviderId(providerId)?.instanceId;
      if (instanceId !== undefined) this.#byInstanceId.set(instanceId, name);
    }
    const nodeName = claim.status?.nodeName;
    if (nodeName !== undefined && nodeName !== '') this.#byNodeName.set(nodeName, name);
  }

  remove(name: string): void {
    const claim = this.byName.get(name);
    if (claim === undefined) return;
    this.byName.delete(name);
    const providerId = claim.status?.providerID;
    if (providerId !== undefined && this.#byProviderId.get(providerId) === name) this.#byProviderId.delete(providerId);
    const instanceId = providerId === undefined ? undefined : parseProviderId(providerId)?.instanceId;
    if (instanceId !== undefined && this.#byInstanceId.get(instanceId) === name) this.#byInstanceId.delete(instanceId);
    const nodeName = claim.status?.nodeName;
    if (nodeName !== undefined && this.#byNodeName.get(nodeName) === name) this.#byNodeName.delete(nodeName);
  }

  byProviderId(providerId: string): NodeClaim | undefined {
    const name = this.#byProviderId.get(providerId);
    return name === undefined ? undefined : this.byName.get(name);
  }

  byInstanceId(instanceId: string): NodeClaim | undefined {
    const name = this.#byInstanceId.get(instanceId);
    return name === undefined ? undefined : this.byName.get(name);
  }

  forNode(nodeName: string, providerId: string | undefined): NodeClaim | undefined {
    const byId = providerId === undefined || providerId === '' ? undefined : this.byProviderId(providerId);
    if (byId !== undefined) return byId;
    const name = this.#byNodeName.get(nodeName);
    return name === undefined ? undefined : this.byName.get(name);
  }
}
