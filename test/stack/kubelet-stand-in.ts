import * as k8s from '@kubernetes/client-node';
import { EC2Client, paginateDescribeInstances, type Instance } from '@aws-sdk/client-ec2';

/**
 * A kubelet for every instance a provisioner launched into moto. moto runs no machine, so nothing would register
 * the Node a real instance's kubelet registers; kwok then keeps that Node Ready and runs its pods.
 */
export interface KubeletStandIn {
  /** Node names registered so far, in order. */
  readonly registered: readonly string[];
  /** The last error of a pass (a failed pass is retried on the next one), for a failing test's report. */
  lastError(): string | undefined;
  stop(): Promise<void>;
}

export interface KubeletStandInOptions {
  readonly kc: k8s.KubeConfig;
  readonly ec2: { readonly endpoint: string; readonly region: string; readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string } };
  /**
   * How long an instance "boots" before its kubelet registers (default 5 s). A provisioner that creates the Node
   * itself the moment the instance exists (nodesmith) has done so by then, and the kubelet adopts that Node.
   */
  readonly bootMs?: number;
  readonly intervalMs?: number;
}

interface NodeClaimView {
  metadata: { name: string; labels?: Record<string, string> };
  spec?: { taints?: k8s.V1Taint[]; startupTaints?: k8s.V1Taint[] };
  status?: { providerID?: string; capacity?: Record<string, string>; allocatable?: Record<string, string> };
}

/** The taint Karpenter's user data has the kubelet register with; Karpenter's registration removes it. */
const unregistered: k8s.V1Taint = { key: 'karpenter.sh/unregistered', effect: 'NoExecute' };

/**
 * The Node a kubelet registers on an instance launched for `claim`: named after the instance's private DNS name,
 * with its provider ID, the NodeClaim's labels (Karpenter passes them as `--node-labels`), its taints and startup
 * taints plus karpenter.sh/unregistered (`--register-with-taints`), the well-known labels the kubelet and the cloud
 * controller set, and the capacity the provisioner computed for the type.
 */
export function kubeletNode(instance: Instance, claim: NodeClaimView): k8s.V1Node {
  const zone = instance.Placement?.AvailabilityZone ?? '';
  const name = instance.PrivateDnsName ?? instance.InstanceId ?? '';
  const { spec = {}, status = {} } = claim;
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { ...claim.metadata.labels, ...wellKnownLabels(instance, name, zone) } },
    spec: { providerID: `aws:///${zone}/${instance.InstanceId ?? ''}`, taints: [...(spec.taints ?? []), ...(spec.startupTaints ?? []), unregistered] },
    status: { capacity: status.capacity ?? {}, allocatable: status.allocatable ?? {} },
  };
}

function wellKnownLabels(instance: Instance, name: string, zone: string): Record<string, string> {
  return {
    'kubernetes.io/hostname': name,
    'kubernetes.io/os': 'linux',
    'kubernetes.io/arch': instance.Architecture === 'arm64' ? 'arm64' : 'amd64',
    'node.kubernetes.io/instance-type': instance.InstanceType ?? '',
    'topology.kubernetes.io/zone': zone,
    'topology.kubernetes.io/region': zone.slice(0, -1),
  };
}

const instanceId = (providerID: string | undefined): string | undefined => providerID?.split('/').at(-1);

async function runningInstances(ec2: EC2Client): Promise<Instance[]> {
  const out: Instance[] = [];
  const Filters = [{ Name: 'tag-key', Values: ['karpenter.sh/nodepool'] }, { Name: 'instance-state-name', Values: ['running'] }];
  for await (const page of paginateDescribeInstances({ client: ec2 }, { Filters })) {
    for (const r of page.Reservations ?? []) out.push(...(r.Instances ?? []));
  }
  return out;
}

/** Starts registering Nodes; `stop()` ends the loop (Nodes already registered stay, as after a kubelet stops). */
export function startKubeletStandIn(options: KubeletStandInOptions): KubeletStandIn {
  const ec2 = new EC2Client({ endpoint: options.ec2.endpoint, region: options.ec2.region, credentials: options.ec2.credentials });
  const core = options.kc.makeApiClient(k8s.CoreV1Api);
  const custom = options.kc.makeApiClient(k8s.CustomObjectsApi);
  const registered: string[] = [];
  let lastError: string | undefined;
  const stopping = new AbortController();
  const register = async (instance: Instance, claim: NodeClaimView): Promise<void> => {
    const node = kubeletNode(instance, claim);
    try {
      await core.createNode({ body: node });
      registered.push(node.metadata?.name ?? '');
    } catch (error) {
      // AlreadyExists: the provisioner created this Node between our list and our create; the kubelet adopts it.
      if (!(error instanceof k8s.ApiException && error.code === 409)) throw error;
    }
  };
  const pass = async (): Promise<void> => {
    const instances = await runningInstances(ec2);
    const claims = ((await custom.listClusterCustomObject({ group: 'karpenter.sh', version: 'v1', plural: 'nodeclaims' })) as { items: NodeClaimView[] }).items;
    const withNode = new Set((await core.listNode()).items.map((n) => instanceId(n.spec?.providerID)));
    const claimOf = new Map(claims.map((c) => [instanceId(c.status?.providerID), c]));
    const booted = Date.now() - (options.bootMs ?? 5_000);
    for (const instance of instances) {
      const claim = claimOf.get(instance.InstanceId);
      const launched = instance.LaunchTime?.getTime() ?? 0;
      if (claim !== undefined && !withNode.has(instance.InstanceId) && launched <= booted) await register(instance, claim);
    }
  };
  const loop = (async () => {
    while (!stopping.signal.aborted) {
      await pass().then(() => { lastError = undefined; }, (e: unknown) => { lastError = e instanceof Error ? e.message : String(e); });
      await new Promise((r) => setTimeout(r, options.intervalMs ?? 1_000));
    }
  })();
  return {
    registered,
    lastError: () => lastError,
    stop: async () => {
      stopping.abort();
      await loop;
      ec2.destroy();
    },
  };
}
