/** core/v1 Taint. Effect is NoSchedule, PreferNoSchedule or NoExecute. */
export interface Taint {
  readonly key: string;
  readonly value?: string;
  readonly effect: string;
}

/** core/v1 Toleration. Operator is Exists or Equal (the default). */
export interface Toleration {
  readonly key?: string;
  readonly operator?: string;
  readonly value?: string;
  readonly effect?: string;
  readonly tolerationSeconds?: number;
}
