import type { ConsolidationOptions } from '../provisioner/disruption/consolidation-settings.js';
import type { BatchWindows } from '../provisioner/provisioning/batcher.js';
import type { PeriodicController } from './controller-periods.js';

/** Everything `nodesmith run` needs, parsed once from flags (see run-flags.ts) and passed down frozen. */
export interface NodesmithConfig {
  /** Undefined: in-cluster service account, else ~/.kube/config. */
  readonly kubeconfig?: string;
  /** The environment the kubeconfig is looked up in (KUBECONFIG, HOME, the in-cluster service address). */
  readonly kubeEnv: Readonly<Record<string, string | undefined>>;
  readonly components: { readonly provisioner: boolean; readonly extender: boolean; readonly webhooks: boolean };
  /** dnsClusterIp: the kube-dns Service address written into every node's kubelet (Karpenter's KubeDNSIP). */
  readonly cluster: { readonly name: string; readonly endpoint: string; readonly certificateAuthority: string; readonly serviceCidr: string; readonly dnsClusterIp?: string };
  readonly kubernetesVersion: string;
  readonly aws: {
    readonly region: string;
    readonly endpoint?: string;
    readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string };
    /** Only for emulators that reserve the public SSM prefix (moto). */
    readonly amiParameterPrefix?: string;
    /** Karpenter's INTERRUPTION_QUEUE (SQS name or URL); unset: interruption handling off. */
    readonly interruptionQueue?: string;
    /** `api`: DescribeSpotPriceHistory, refreshed every `spotPriceRefreshMs`; `catalog`: the embedded estimate only. */
    readonly spotPrices?: 'api' | 'catalog';
    readonly spotPriceRefreshMs?: number;
    /** RESERVED_ENIS: network interfaces kept from pods when max pods is ENI-limited (default 0). */
    readonly reservedEnis?: number;
    /** VM_MEMORY_OVERHEAD_PERCENT: memory the hypervisor keeps, as a fraction (default 0.075). */
    readonly vmMemoryOverheadPercent?: number;
  };
  /** Zones offered by the catalog; default <region>a, b, c. */
  readonly zones?: readonly string[];
  /** `scaleInRank`: binds set the pod's pod-deletion-cost from its node (`--pod-deletion-cost`, on unless false). */
  readonly extender: {
    readonly host: string; readonly port: number; readonly scaleInRank?: boolean; readonly tls?: { readonly certFile: string; readonly keyFile: string };
    /**
     * The address (an IP or a name) at which the other replicas reach this one's extender: the leader publishes
     * its extender's URL on the Lease and the others hand it their binds. Absent: each replica binds for itself.
     */
    readonly peerHost?: string;
  };
  readonly webhooks: { readonly host: string; readonly port: number; readonly certFile: string; readonly keyFile: string; readonly productServiceAccount: string };
  /** /metrics, /healthz and /readyz of the provisioner itself; metrics served under metricsNamespace (default nodesmith). */
  readonly health: { readonly host: string; readonly port: number; readonly metricsNamespace?: string };
  readonly batch: BatchWindows;
  /**
   * Schedulers that call nodesmith's extender: their pods are planned as soon as they are pending, not only once
   * kube-scheduler has marked them Unschedulable (`--early-planning-schedulers`, default-scheduler by default; off when empty, `none` on the command line).
   */
  readonly earlyPlanningSchedulers?: readonly string[];
  /** How often every NodeClaim's drift is checked again besides on changes, and the resolved AMIs, subnets and security groups are read again (Karpenter: 5 min). */
  readonly driftRecheckMs?: number;
  /**
   * `--controller-periods`: shorter periods for controllers named as in cli/controllers.ts (controller-periods.ts);
   * each caps its controller's wait between passes. Unset: every controller's default.
   */
  readonly controllerPeriods?: Readonly<Partial<Record<PeriodicController, number>>>;
  /**
   * `--consolidation-min-savings` (the default for NodePools without the annotation) and the SpotToSpotConsolidation
   * gate. `nodesmith run` always sets it; left out (test stacks that do not opt in), the disruption controller runs
   * emptiness and drift only, so a test's nodes are not consolidated under it.
   */
  readonly consolidation?: ConsolidationOptions;
  /**
   * Karpenter's ReservedCapacity gate (on by default; `--feature-gates ReservedCapacity=false` turns it off): plan
   * and launch into the capacity reservations the EC2NodeClasses select.
   */
  readonly reservedCapacity?: boolean;
  /** Karpenter's NodeRepair gate (`--feature-gates NodeRepair=true`, off by default): replace nodes unhealthy too long. */
  readonly nodeRepair?: boolean;
  /** Karpenter's StaticCapacity gate (off by default): static NodePools (`spec.replicas`) are admitted and kept at their replicas. */
  readonly staticCapacity?: boolean;
  /** Karpenter's NodeOverlay gate (`--feature-gates NodeOverlay=true`, off by default): NodeOverlays change prices and capacity. */
  readonly nodeOverlay?: boolean;
  /** Karpenter's CapacityBuffer gate (off by default): CapacityBuffers are admitted, resolved and their room kept. */
  readonly capacityBuffer?: boolean;
  /** Gate DynamicResourceAllocation (on unless false, as in Kubernetes 1.34+): watch resource.k8s.io/v1, publish virtual nodes' ResourceSlices, plan claims. */
  readonly dynamicResourceAllocation?: boolean;
  /**
   * Never two controllers at once: where Karpenter's leader-election Lease and Deployment may be, and
   * `--ignore-running-karpenter` to act even while they say Karpenter runs (docs/migration.md).
   */
  readonly karpenterGuard: {
    readonly leases: readonly { readonly namespace: string; readonly name: string }[];
    readonly deployments: readonly { readonly namespace: string; readonly name: string }[];
    readonly override: boolean;
  };
  readonly leaderElection: { readonly enabled: boolean; readonly namespace: string; readonly identity: string };
  readonly logLevel: string;
  /** The git commit this build came from, for build_info; unset in a source checkout. */
  readonly commit?: string;
}
