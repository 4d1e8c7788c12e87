import type { TSchema } from '@sinclair/typebox';
import { EC2NodeClassSpec } from './ec2nodeclass-schema.js';
import { EC2NodeClassStatus } from './ec2nodeclass-status-schema.js';
import { NodeClaimSpec, NodeClaimStatus } from './nodeclaim-schema.js';
import { NodeOverlaySpec, NodeOverlayStatus } from './nodeoverlay-schema.js';
import { NodePoolSpec, NodePoolStatus } from './nodepool-schema.js';
import { CapacityBufferSpec, CapacityBufferStatus } from './capacitybuffer-schema.js';

interface PrinterColumn {
  readonly name: string;
  readonly type: 'string' | 'integer' | 'date' | 'number' | 'boolean';
  readonly jsonPath: string;
  readonly priority?: number;
}

interface CrdSource {
  readonly group: string;
  /** The served and stored version; v1 unless given. */
  readonly version?: string;
  readonly kind: string;
  readonly plural: string;
  readonly shortNames?: readonly string[];
  readonly description: string;
  readonly spec: TSchema;
  readonly status: TSchema;
  readonly columns: readonly PrinterColumn[];
  /** Cluster unless given (CapacityBuffer is namespaced). */
  readonly scope?: 'Cluster' | 'Namespaced';
  /** `karpenter` unless given. */
  readonly categories?: readonly string[];
  /** Static NodePools (`spec.replicas`) expose a scale subresource: replicas ↔ status.nodes. */
  readonly scale?: { readonly specReplicasPath: string; readonly statusReplicasPath: string };
}

const ready: PrinterColumn = { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' };
const age: PrinterColumn = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' };

/**
 * Karpenter's kinds, as served by our CRDs: the three v1 kinds, NodeOverlay (v1alpha1, behind the NodeOverlay gate)
 * and CapacityBuffer (autoscaling.x-k8s.io/v1beta1, behind the CapacityBuffer gate).
 */
export const crdSources: readonly CrdSource[] = [
  {
    group: 'karpenter.sh', kind: 'NodePool', plural: 'nodepools',
    description: 'NodePool is the Schema for the NodePools API: a template for the nodes the provisioner may launch.',
    spec: NodePoolSpec, status: NodePoolStatus,
    scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.nodes' },
    columns: [
      { name: 'NodeClass', type: 'string', jsonPath: '.spec.template.spec.nodeClassRef.name' },
      { name: 'Nodes', type: 'string', jsonPath: '.status.resources.nodes' },
      ready, age,
      { name: 'Weight', type: 'integer', jsonPath: '.spec.weight', priority: 1 },
      { name: 'CPU', type: 'string', jsonPath: '.status.resources.cpu', priority: 1 },
      { name: 'Memory', type: 'string', jsonPath: '.status.resources.memory', priority: 1 },
    ],
  },
  {
    group: 'karpenter.sh', kind: 'NodeClaim', plural: 'nodeclaims',
    description: 'NodeClaim is the Schema for the NodeClaims API: one requested node and its instance.',
    spec: NodeClaimSpec, status: NodeClaimStatus,
    columns: [
      { name: 'Type', type: 'string', jsonPath: '.metadata.labels.node\\.kubernetes\\.io/instance-type' },
      { name: 'Capacity', type: 'string', jsonPath: '.metadata.labels.karpenter\\.sh/capacity-type' },
      { name: 'Zone', type: 'string', jsonPath: '.metadata.labels.topology\\.kubernetes\\.io/zone' },
      { name: 'Node', type: 'string', jsonPath: '.status.nodeName' },
      ready, age,
      { name: 'ImageID', type: 'string', jsonPath: '.status.imageID', priority: 1 },
      { name: 'ID', type: 'string', jsonPath: '.status.providerID', priority: 1 },
      { name: 'NodePool', type: 'string', jsonPath: '.metadata.labels.karpenter\\.sh/nodepool', priority: 1 },
      { name: 'NodeClass', type: 'string', jsonPath: '.spec.nodeClassRef.name', priority: 1 },
      { name: 'Drifted', type: 'string', jsonPath: '.status.conditions[?(@.type=="Drifted")].status', priority: 1 },
    ],
  },
  {
    group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', plural: 'ec2nodeclasses', shortNames: ['ec2nc', 'ec2ncs'],
    description: 'EC2NodeClass is the Schema for the EC2NodeClass API: how instances are launched on AWS.',
    spec: EC2NodeClassSpec, status: EC2NodeClassStatus,
    columns: [ready, age, { name: 'Role', type: 'string', jsonPath: '.spec.role', priority: 1 }],
  },
  {
    group: 'karpenter.sh', version: 'v1alpha1', kind: 'NodeOverlay', plural: 'nodeoverlays', shortNames: ['overlays'],
    description: 'NodeOverlay is the Schema for the NodeOverlays API: price and capacity changes for matching instance types (feature gate NodeOverlay).',
    spec: NodeOverlaySpec, status: NodeOverlayStatus,
    columns: [ready, age, { name: 'Weight', type: 'integer', jsonPath: '.spec.weight', priority: 1 }],
  },
  {
    group: 'autoscaling.x-k8s.io', version: 'v1beta1', kind: 'CapacityBuffer', plural: 'capacitybuffers', shortNames: ['cb'],
    scope: 'Namespaced', categories: ['autoscaling'],
    description: 'CapacityBuffer is the Schema for the CapacityBuffer API: room for a number of pods of one shape, kept free on running nodes (feature gate CapacityBuffer).',
    spec: CapacityBufferSpec, status: CapacityBufferStatus,
    columns: [
      { name: 'Strategy', type: 'string', jsonPath: '.spec.provisioningStrategy' },
      { name: 'PodTemplate', type: 'string', jsonPath: '.status.podTemplateRef.name' },
      { name: 'Replicas', type: 'integer', jsonPath: '.status.replicas' },
      { name: 'ConditionsType', type: 'string', jsonPath: '.status.conditions[*].type' },
      { name: 'ConditionsStatus', type: 'string', jsonPath: '.status.conditions[*].status' },
      { name: 'ConditionsReason', type: 'string', jsonPath: '.status.conditions[*].reason' },
      age,
    ],
  },
];

/** A TypeBox schema as plain JSON: drops TypeBox's symbol keys, which the API server never sees. */
function plain(schema: TSchema): unknown {
  return JSON.parse(JSON.stringify(schema));
}

function buildCrd(source: CrdSource): Record<string, unknown> {
  const singular = source.kind.toLowerCase();
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${source.plural}.${source.group}` },
    spec: {
      group: source.group,
      names: {
        categories: [...(source.categories ?? ['karpenter'])],
        kind: source.kind,
        listKind: `${source.kind}List`,
        plural: source.plural,
        ...(source.shortNames ? { shortNames: [...source.shortNames] } : {}),
        singular,
      },
      scope: source.scope ?? 'Cluster',
      versions: [{
        name: source.version ?? 'v1',
        served: true,
        storage: true,
        additionalPrinterColumns: source.columns,
        subresources: { status: {}, ...(source.scale ? { scale: { ...source.scale } } : {}) },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            description: source.description,
            properties: {
              apiVersion: { type: 'string' },
              kind: { type: 'string' },
              metadata: { type: 'object' },
              spec: plain(source.spec),
              status: plain(source.status),
            },
            required: ['spec'],
          },
        },
      }],
    },
  };
}

/** Every CRD object, in a stable order, ready to serialise as YAML. */
export function buildCrds(): { fileName: string; crd: Record<string, unknown> }[] {
  return crdSources.map((source) => ({
    fileName: `${source.group}_${source.plural}.yaml`,
    crd: buildCrd(source),
  }));
}
