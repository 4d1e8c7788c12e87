import { checkKubeletForFamily } from '../api/kubelet-rules.js';
import { checkKubeletFields } from '../api/kubelet-field-schema.js';
import type { KubeletSettings } from '../cloud/node-class.js';
import { eniLimitedPods, evictionThreshold, kubeReserved, maxPods, systemReserved, type MachineFacts } from './allocatable.js';
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
}

/** What a node's kubelet is derived from: the machine, its memory and ephemeral storage as the class sizes them. */
export interface NodeKubeletInput {
  readonly machine: MachineFacts;
  /** Memory capacity in bytes (after the VM overhead). */
  readonly memory: number;
  /** Ephemeral storage capacity in bytes. */
  readonly storage: number;
  readonly family: AmiFamilyCapacity;
  /** The class's spec.kubelet, whole. */
  readonly kubelet: KubeletSettings;
  /** EFA-only interfaces on the first network card: each takes an ENI from the VPC CNI. */
  readonly efaOnlyEnis: number;
}

/** Karpenter's NewInstanceType and launch template resolver, for the kubelet: max pods, then what it reserves. */
export function nodeKubelet(input: NodeKubeletInput): NodeKubelet {
  const { machine, family, kubelet, efaOnlyEnis } = input;
  const pods = maxPods(machine, family, kubelet, efaOnlyEnis);
  // AL2, AL2023 and Custom reserve memory for the ENI-limited pod count (no reserved ENIs) whatever maxPods says.
  const reservedFor = family.eniLimitedMemoryOverhead ? eniLimitedPods(machine, 0, efaOnlyEnis) : pods;
  const overhead: Overhead = {
    kubeReserved: kubeReserved(machine.vcpu, reservedFor, kubelet.kubeReserved),
    systemReserved: systemReserved(kubelet.systemReserved),
    evictionThreshold: evictionThreshold(input.memory, input.storage, kubelet.evictionHard),
  };
  // A user maxPods stays as written even where podsPerCore caps the pods lower: the kubelet applies podsPerCore
  // itself. A type with no pod room (every ENI reserved) tells its kubelet nothing, as Karpenter sends no zero.
  const config = kubelet.maxPods === undefined && pods > 0 ? { ...kubelet, maxPods: pods } : kubelet;
  return { config, pods, overhead };
}


/**
 * A class's kubelet as every node of it starts from: spec.kubelet copied (the class's later generations cannot reach
 * into it; the types' cache key and every launch read it), and why no node can run it, if none can: a field the
 * upstream KubeletConfiguration lacks, or one its AMI family cannot write (the admission rules' first problem, for a
 * class admitted before the rules or with the webhook off).
 */
export function classKubelet(kubelet: KubeletSettings | undefined, family: string): { kubelet: KubeletSettings | undefined; kubeletRefusal: string | undefined } {
  const [refused] = [...checkKubeletFields(kubelet), ...checkKubeletForFamily(kubelet, family)];
  return {
    kubelet: kubelet === undefined ? undefined : structuredClone(kubelet),
    kubeletRefusal: refused === undefined ? undefined : `${refused.path}: ${refused.message}`,
  };
}
