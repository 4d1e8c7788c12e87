import { fnv1a64 } from '../fnv1a.js';
/** An IAM instance profile as far as nodesmith cares: its name and the role it carries. */
export interface InstanceProfile {
  readonly name: string;
  /** At most one: IAM allows a single role per instance profile. */
  readonly roles: readonly string[];
}

/** What Karpenter puts on a profile it creates for an EC2NodeClass's `role`. */
export interface InstanceProfileRequest {
  readonly name: string;
  readonly role: string;
  readonly tags: Readonly<Record<string, string>>;
  /** `/karpenter/<region>/<cluster>/<nodeclass uid>/` */
  readonly path: string;
}

/**
 * The IAM port for instance profiles (Karpenter's instanceprofile.Provider). Failures arrive as
 * domain errors: a missing role or refused credentials as NodeClassNotReadyError.
 */
export interface InstanceProfileProvider {
  /** Undefined when there is no such profile. */
  get(name: string): Promise<InstanceProfile | undefined>;
  /** Creates the profile if missing and makes `role` its only role; safe to repeat. */
  ensure(request: InstanceProfileRequest): Promise<void>;
  /** Detaches its role and deletes it; a profile that is already gone is not an error. */
  delete(name: string): Promise<void>;
}

/**
 * Karpenter's profile name shape, `<cluster>_<decimal hash>`. Karpenter mixes a random UUID into
 * the hash and relies on the status to find the profile again; ours hashes region, name and the
 * NodeClass's uid, so a restart between CreateInstanceProfile and the status write adopts the same
 * profile instead of leaking one. A recreated NodeClass (new uid) gets a new profile.
 */
export function instanceProfileName(cluster: string, region: string, nodeClass: { readonly name: string; readonly uid: string }): string {
  return `${cluster}_${fnv1a64(`${region}${nodeClass.name}${nodeClass.uid}`).toString()}`;
}

/** Karpenter's InstanceProfileTags: the NodeClass's tags plus ownership. */
export function instanceProfileTags(
  cluster: string,
  region: string,
  nodeClass: { readonly name: string; readonly tags?: Readonly<Record<string, string>> },
): Record<string, string> {
  return {
    ...nodeClass.tags,
    [`kubernetes.io/cluster/${cluster}`]: 'owned',
    'eks:eks-cluster-name': cluster,
    'karpenter.k8s.aws/ec2nodeclass': nodeClass.name,
    'topology.kubernetes.io/region': region,
  };
}

export function instanceProfilePath(cluster: string, region: string, nodeClassUid: string): string {
  return `/karpenter/${region}/${cluster}/${nodeClassUid}/`;
}
