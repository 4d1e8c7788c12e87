/** The subset of Kubernetes ObjectMeta the model reads. Field names match the API exactly. */
export interface ObjectMeta {
  readonly name?: string;
  readonly namespace?: string;
  readonly uid?: string;
  /** Changes on every write: tells a new version of an object from the same one delivered again. */
  readonly resourceVersion?: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly creationTimestamp?: string;
  readonly deletionTimestamp?: string;
  readonly finalizers?: readonly string[];
  readonly ownerReferences?: readonly OwnerReference[];
}

/** metadata.ownerReferences[] entry. */
export interface OwnerReference {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid?: string;
  readonly controller?: boolean;
}

/** metav1.LabelSelector. */
export interface LabelSelector {
  readonly matchLabels?: Readonly<Record<string, string>>;
  readonly matchExpressions?: readonly LabelSelectorRequirement[];
}

/** metav1.LabelSelectorRequirement (operators In, NotIn, Exists, DoesNotExist). */
export interface LabelSelectorRequirement {
  readonly key: string;
  readonly operator: string;
  readonly values?: readonly string[];
}
