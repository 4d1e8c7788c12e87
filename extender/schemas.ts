/**
 * JSON Schemas of kube-scheduler's extender/v1 wire types (the Go structs have no JSON tags, hence the
 * capitalised keys). Requests are checked by a dedicated ajv (see validator.ts) that never rewrites them.
 * Only the parts of the Pod the extender reads are constrained; the rest passes through untouched.
 */
import { Type, type Static } from '@sinclair/typebox';

const Quantity = Type.Union([Type.String({ maxLength: 64 }), Type.Number()]);
const ResourceMap = Type.Record(Type.String(), Quantity);
const StringMap = Type.Record(Type.String(), Type.String());

const Container = Type.Object({
  name: Type.String(),
  resources: Type.Optional(Type.Object({ requests: Type.Optional(ResourceMap), limits: Type.Optional(ResourceMap) })),
  restartPolicy: Type.Optional(Type.String()),
});

export const PodSchema = Type.Object({
  metadata: Type.Object({
    name: Type.String({ minLength: 1 }),
    namespace: Type.String({ minLength: 1 }),
    uid: Type.Optional(Type.String()),
    annotations: Type.Optional(StringMap),
    labels: Type.Optional(StringMap),
    ownerReferences: Type.Optional(Type.Array(Type.Object({ apiVersion: Type.String(), kind: Type.String(), name: Type.String() }))),
  }),
  spec: Type.Object({
    containers: Type.Array(Container),
    initContainers: Type.Optional(Type.Array(Container)),
    overhead: Type.Optional(ResourceMap),
    nodeName: Type.Optional(Type.String()),
  }),
});

const NodeItem = Type.Object({ metadata: Type.Object({ name: Type.String({ minLength: 1 }) }) });

/** extenderv1.ExtenderArgs: with nodeCacheCapable only NodeNames is set; Go sends nil slices as null. */
export const ExtenderArgsSchema = Type.Object({
  Pod: PodSchema,
  Nodes: Type.Optional(Type.Union([Type.Null(), Type.Object({ items: Type.Union([Type.Null(), Type.Array(NodeItem)]) })])),
  NodeNames: Type.Optional(Type.Union([Type.Null(), Type.Array(Type.String())])),
});
export type ExtenderArgs = Static<typeof ExtenderArgsSchema>;

/** extenderv1.ExtenderBindingArgs. */
export const BindingArgsSchema = Type.Object({
  PodName: Type.String({ minLength: 1 }),
  PodNamespace: Type.String({ minLength: 1 }),
  PodUID: Type.String(),
  Node: Type.String({ minLength: 1 }),
  // Ours, on a bind one replica hands to the leader (bind-forward.ts): what it knew of the pod.
  Forwarded: Type.Optional(Type.Object({
    Requests: Type.Record(Type.String(), Type.Number({ minimum: 0 })),
    DeletionCost: Type.Optional(Type.String()),
  })),
});

const FailedNodesMap = Type.Record(Type.String(), Type.String());

/**
 * extenderv1.ExtenderFilterResult. `Nodes` echoes whole Node objects in the full-node form, so it is left
 * untyped: fast-json-stringify then writes it with JSON.stringify and drops nothing.
 */
export const FilterResultSchema = Type.Object({
  Nodes: Type.Unknown(),
  NodeNames: Type.Union([Type.Null(), Type.Array(Type.String())]),
  FailedNodes: FailedNodesMap,
  FailedAndUnresolvableNodes: FailedNodesMap,
  Error: Type.String(),
});

export type FilterResult = Static<typeof FilterResultSchema>;

/** extenderv1.HostPriorityList. */
export const HostPriorityListSchema = Type.Array(Type.Object({ Host: Type.String(), Score: Type.Integer() }));

/** extenderv1.ExtenderBindingResult, also the body of every non-200 reply. */
export const ErrorResultSchema = Type.Object({ Error: Type.String() });
