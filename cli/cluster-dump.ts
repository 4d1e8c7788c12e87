import type { ProvisioningRequest } from '../domain/provisioning-requests/provisioning-request.js';
import type { EC2NodeClass } from '../domain/api/ec2nodeclass-schema.js';
import { defaultEC2NodeClass } from '../domain/api/ec2nodeclass-validation.js';
import type { NodeClaim } from '../domain/api/nodeclaim-schema.js';
import type { NodePool } from '../domain/api/nodepool-schema.js';
import type { NodeOverlay } from '../domain/api/nodeoverlay-schema.js';
import { defaultNodePool } from '../domain/api/nodepool-validation.js';
import type { PodDisruptionBudget } from '../domain/core/pod-disruption-budget.js';
import { projectDaemonSet, projectNode, projectPod, projectWhole } from '../provisioner/kube/projection.js';
import { ClusterState } from '../provisioner/state/cluster-state.js';
import type { ManifestFile } from './manifest-files.js';

/** What reading a dump found: the model, and what it left out. */
export interface DumpState {
  readonly state: ClusterState;
  /** NodeOverlays, for the caller to apply to the catalog when the NodeOverlay gate is on. */
  readonly nodeOverlays: readonly NodeOverlay[];
  /** "Kind name" of objects nothing here reads (Deployments, Services …). */
  readonly ignored: readonly string[];
  /** Documents that are not Kubernetes objects, by file and document. */
  readonly problems: readonly string[];
}

type Obj = Record<string, unknown>;

const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function nameOf(o: Obj): string {
  const meta = o['metadata'];
  return isObject(meta) && typeof meta['name'] === 'string' ? meta['name'] : '<unnamed>';
}

/** Feeds one object to the model the way the informers would (same projections, defaults as the webhooks leave them). */
function feed(state: ClusterState, o: Obj): boolean {
  switch (o['kind']) {
    case 'Node': state.upsertNode(projectNode(o)); return true;
    case 'Pod': state.upsertPod(projectPod(o)); return true;
    case 'NodeClaim': state.upsertNodeClaim(projectWhole(o) as NodeClaim); return true;
    case 'NodePool': state.upsertObject('nodepool', defaultNodePool(projectWhole(o)) as NodePool); return true;
    case 'EC2NodeClass': state.upsertObject('ec2nodeclass', defaultEC2NodeClass(projectWhole(o)) as EC2NodeClass); return true;
    case 'PodDisruptionBudget': state.upsertPdb(projectWhole(o) as PodDisruptionBudget); return true;
    case 'DaemonSet': state.upsertObject('daemonset', projectDaemonSet(o)); return true;
    // A booked best-effort-atomic request holds its nodes from disruption: the dry run says so, as the controller would.
    case 'ProvisioningRequest': state.upsertObject('provisioningrequest', projectWhole(o) as ProvisioningRequest); return true;
    default: return false;
  }
}

/** The objects of one document: a List's items, or the document itself. */
function objectsOf(value: unknown): unknown[] {
  const isList = isObject(value) && typeof value['kind'] === 'string' && value['kind'].endsWith('List') && Array.isArray(value['items']);
  return isList ? (value['items'] as unknown[]) : [value];
}

/**
 * The cluster model from manifests or a `kubectl get nodes,pods,nodeclaims,nodepools,ec2nodeclasses,pdb,ds -A -o yaml`
 * dump (Lists are unwrapped): the same model, fed the same way, that the controller reads from its informers.
 */
export function stateFromDump(files: readonly ManifestFile[]): DumpState {
  const state = new ClusterState();
  const ignored: string[] = [];
  const nodeOverlays: NodeOverlay[] = [];
  const problems: string[] = files.flatMap((f) => f.problems.map((p) => `${f.file}: document ${String(p.index)}, line ${String(p.line)}: ${p.message}`));
  const documents = files.flatMap((file) => file.documents.filter((d) => d.value !== null && d.value !== undefined).map((doc) => ({ file: file.file, doc })));
  for (const { file, doc } of documents) {
    for (const item of objectsOf(doc.value)) {
      if (!isObject(item) || typeof item['kind'] !== 'string') problems.push(`${file}: document ${String(doc.index)}, line ${String(doc.line)}: not a Kubernetes object (no kind)`);
      else if (item['kind'] === 'NodeOverlay') nodeOverlays.push(projectWhole(item) as NodeOverlay);
      else if (!feed(state, item)) ignored.push(`${item['kind']} ${nameOf(item)}`);
    }
  }
  state.markSynced();
  return { state, nodeOverlays, ignored, problems };
}
