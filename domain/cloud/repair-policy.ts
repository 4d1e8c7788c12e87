/**
 * One of the cloud's node repair policies (Karpenter's `cloudprovider.RepairPolicy`): a Node whose condition of this
 * type has had this status for longer than the toleration is broken beyond waiting for, and is replaced.
 */
export interface RepairPolicy {
  readonly conditionType: string;
  readonly conditionStatus: 'True' | 'False' | 'Unknown';
  readonly tolerationMs: number;
}
