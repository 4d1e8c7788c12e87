import { checkKubeletForFamily } from '../api/kubelet-rules.js';
import { checkKubeletFields } from '../api/kubelet-field-schema.js';
import { checkKubeletExpressions } from '../api/kubelet-expression-rules.js';
import type { KubeletSettings, KubeletSpec } from '../cloud/node-class.js';
import { eniLimitedPods, evictionThreshold, kubeReserved, maxPods, systemReserved, type MachineFacts } from './allocatable.js';
import { expressionVariables, resolveMaxPods, resolveReserved } from './kubelet-expressions.js';
import type { AmiFamilyCapacity } from './ami-family-capacity.js';
import type { Overhead } from './instance-type.js';

/**
 * The kubelet a node of one instance type runs under one EC2NodeClass, computed once: the configuration its user
 * data writes and the pods and overhead the simulation sizes it with. Both sides read this one value, so a node's
 * kubelet and its planned allocatable cannot disagree (issue 36 item 4: they used to be derived apart, the pods
 * from the class's sizing fields in the planner, the rest from the raw spec.kubelet in the user data).
 */
export interface NodeKubelet {
  /**
   * The KubeletConfiguration its user data writes: spec.kubelet as the class gives it, with maxPods the type's pod
   * capacity when the class sets none (as Karpenter's launch template resolver fills it). The cluster DNS address the
   * operator knows is the user data's to add: it is the cluster's, not the class's or the type's.
   */
  readonly config: KubeletSettings;
  /** The pods the node holds: the capacity the simulation counts. */
  readonly pods: number;
  readonly overhead: Overhead;
  /**
   * Why no node of this type can run the class's kubelet: an expression that fails, or yields a value the kubelet
   * cannot take, on this type (the type then has no available offering). The values above are then sized without it.
   */
  readonly refusal?: string;
}

/** What a node's kubelet is derived from: the machine, its memory and ephemeral storage as the class sizes them. */
export interface NodeKubeletInput {
  /** The instance type's name: `instance_type` to an expression. */
  readonly instanceType: string;
  readonly machine: MachineFacts;
  /** Memory capacity in bytes (after the VM overhead). */
  readonly memory: number;
  /** Ephemeral storage capacity in bytes. */
  readonly storage: number;
  readonly family: AmiFamilyCapacity;
  /** The class's spec.kubelet, whole, expressions unevaluated. */
  readonly kubelet: KubeletSpec;
  /** EFA-only interfaces on the first network card: each takes an ENI from the VPC CNI. */
  readonly efaOnlyEnis: number;
}

/**
 * spec.kubelet with its expressions evaluated for one type, as Karpenter's instance type resolver does before sizing
 * it: maxPods against the pods the type would have without one, then kubeReserved and systemReserved against the pods
 * that gives. The first failure is the type's refusal; the value that failed is left out.
 */
function resolvedKubelet(input: NodeKubeletInput): { kubelet: KubeletSettings; refusal?: string } {
  const { machine, family, kubelet, efaOnlyEnis, instanceType } = input;
  const { maxPods: given, kubeReserved: kube, systemReserved: system, ...rest } = kubelet;
  let refusal: string | undefined;
  let userPods = typeof given === 'number' ? given : undefined;
  if (typeof given === 'string') {
    const out = resolveMaxPods(given, expressionVariables(instanceType, machine, maxPods(machine, family, rest, efaOnlyEnis)));
    userPods = out.value;
    refusal = out.refusal;
  }
  const resolved: KubeletSettings = { ...rest, ...(userPods === undefined ? {} : { maxPods: userPods }) };
  const variables = expressionVariables(instanceType, machine, maxPods(machine, family, resolved, efaOnlyEnis));
  const reserved: Record<string, Record<string, string>> = {};
  for (const [field, values] of [['kubeReserved', kube], ['systemReserved', system]] as const) {
    if (values === undefined) continue;
    const out = resolveReserved(field, values, variables);
    refusal ??= out.refusal;
    if (out.value !== undefined) reserved[field] = out.value;
  }
  return { kubelet: { ...resolved, ...reserved }, ...(refusal === undefined ? {} : { refusal }) };
}

/** Karpenter's NewInstanceType and launch template resolver, for the kubelet: max pods, then what it reserves. */
export function nodeKubelet(input: NodeKubeletInput): NodeKubelet {
  const { machine, family, efaOnlyEnis } = input;
  const { kubelet, refusal } = resolvedKubelet(input);
  const pods = maxPods(machine, family, kubelet, efaOnlyEnis);
  // AL2, AL2023 and Custom reserve memory for the ENI-limited pod count (no reserved ENIs) whatever maxPods says.
  const reservedFor = family.eniLimitedMemoryOverhead ? eniLimitedPods(machine, 0, efaOnlyEnis) : pods;
  const overhead: Overhead = {
    kubeReserved: kubeReserved(machine.vcpu, reservedFor, kubelet.kubeReserved),
    systemReserved: systemReserved(kubelet.systemReserved),
    evictionThreshold: evictionThreshold(input.memory, input.storage, kubelet.evictionHard),
  };
  // A user maxPods stays as written even where podsPerCore caps the pods lower: the kubelet applies podsPerCore
  // itself. An expression is not the user's number: the type's pods stand in for it, as for no maxPods (Karpenter's
  // resolver writes the resolved count whenever maxPods is not a literal). A type with no pod room tells its kubelet
  // nothing, as Karpenter sends no zero.
  const config = typeof input.kubelet.maxPods === 'number' ? kubelet : podsWritten(kubelet, pods);
  return { config, pods, overhead, ...(refusal === undefined ? {} : { refusal }) };
}

/** The configuration with the type's pods as its maxPods, or none when it has no pod room. */
function podsWritten(kubelet: KubeletSettings, pods: number): KubeletSettings {
  if (pods > 0) return { ...kubelet, maxPods: pods };
  return Object.fromEntries(Object.entries(kubelet).filter(([field]) => field !== 'maxPods'));
}

/**
 * A class's kubelet as every node of it starts from: spec.kubelet copied (the class's later generations cannot reach
 * into it; the types' cache key and every launch read it), and why no node can run it, if none can: a field the
 * upstream KubeletConfiguration lacks, an expression that does not compile, or a field its AMI family cannot write
 * (the admission rules' first problem, for a class admitted before the rules or with the webhook off).
 */
export function classKubelet(kubelet: KubeletSpec | undefined, family: string): { kubelet: KubeletSpec | undefined; kubeletRefusal: string | undefined } {
  const [refused] = [...checkKubeletFields(kubelet), ...checkKubeletExpressions(kubelet), ...checkKubeletForFamily(kubelet, family)];
  return {
    kubelet: kubelet === undefined ? undefined : structuredClone(kubelet),
    kubeletRefusal: refused === undefined ? undefined : `${refused.path}: ${refused.message}`,
  };
}
