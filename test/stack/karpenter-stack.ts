import * as k8s from '@kubernetes/client-node';
import { registerEksCluster } from './eks-cluster.js';
import { seedEksAmiParameters, startSsmAliasProxy, type SsmAliasProxy } from './eks-ami-parameters.js';
import { startFaultProxy, type FaultProxy } from './fault-proxy.js';
import { applyKarpenterCrds, startKarpenter, type KarpenterOptions, type RunningKarpenter } from './karpenter.js';
import { startKubeletStandIn, type KubeletStandIn } from './kubelet-stand-in.js';
import { seedVpc, startMoto, type Moto, type SeededVpc } from './moto.js';
import { startStack, type Stack } from './stack.js';

/**
 * The real stack and moto as a cluster Karpenter runs on: Karpenter's CRDs, the VPC and AMI parameters it
 * discovers, a kubelet stand-in for its instances, and a plain kube-scheduler (no extender). Karpenter itself is
 * started and stopped by the test (`startKarpenter`), which is what a takeover test is about.
 */
export interface KarpenterWorld {
  readonly stack: Stack;
  readonly kc: k8s.KubeConfig;
  readonly core: k8s.CoreV1Api;
  readonly custom: k8s.CustomObjectsApi;
  readonly moto: Moto;
  readonly vpc: SeededVpc;
  /** In front of moto for EC2, IAM and SQS; nodesmith is given the same one. */
  readonly proxy: FaultProxy;
  readonly ssm: SsmAliasProxy;
  readonly kubelets: KubeletStandIn;
  /** The cluster's Kubernetes version as Karpenter reads it ("1.36"). */
  readonly kubernetesVersion: string;
  /** Starts Karpenter with this world's settings; `extra` overrides some. */
  startKarpenter(extra?: Partial<KarpenterOptions>): Promise<RunningKarpenter>;
  apply(yaml: string): Promise<void>;
  logTails(): string;
  stop(): Promise<void>;
}

/** The API server's --service-cluster-ip-range (test/stack/stack.ts). */
const serviceCidr = '10.96.0.0/16';

async function serverVersion(stack: Stack): Promise<string> {
  const r = await stack.kubectl(['version', '-o', 'json']);
  const v = (JSON.parse(r.stdout) as { serverVersion?: { major: string; minor: string } }).serverVersion;
  if (v === undefined) throw new Error(`kubectl version gave no server version: ${r.stderr}`);
  return `${v.major}.${v.minor.replace(/\+$/, '')}`;
}

/**
 * `kubeletBootMs`: how long the kubelet stand-in lets an instance boot before registering its Node (its default 5 s);
 * `audit`: the API server writes its audit log into the stack's directory (StackOptions.audit).
 */
export async function startKarpenterWorld(clusterName: string, options: { readonly kubeletBootMs?: number; readonly audit?: boolean } = {}): Promise<KarpenterWorld> {
  const stack = await startStack({ scheduler: true, audit: options.audit === true });
  const closers: (() => Promise<void>)[] = [() => stack.stop()];
  const stopAll = async (): Promise<void> => { for (const close of closers.reverse()) await close().catch(() => undefined); };
  try {
    const moto = await startMoto({ logDir: stack.dir });
    closers.push(() => moto.stop());
    const vpc = await seedVpc(moto, clusterName);
    const kubernetesVersion = await serverVersion(stack);
    await seedEksAmiParameters(moto, vpc, kubernetesVersion);
    await registerEksCluster(moto, { name: clusterName, version: kubernetesVersion, serviceCidr: serviceCidr, subnetIds: vpc.subnets.map((s) => s.id) });
    const proxy = await startFaultProxy(moto.endpoint);
    closers.push(() => proxy.stop());
    const ssm = await startSsmAliasProxy(moto.endpoint, vpc.eksAmiParameterPrefix);
    closers.push(() => ssm.stop());
    await applyKarpenterCrds(stack);
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(stack.kubeconfigPath);
    const kubelets = startKubeletStandIn({ kc, ec2: { endpoint: moto.endpoint, region: moto.region, credentials: moto.credentials }, ...(options.kubeletBootMs === undefined ? {} : { bootMs: options.kubeletBootMs }) });
    closers.push(() => kubelets.stop());
    const karpenters: RunningKarpenter[] = [];
    // Karpenter first: it must not outlive the API server it talks to.
    closers.push(async () => { for (const k of karpenters) await k.stop(); });
    const apply = async (yaml: string): Promise<void> => {
      const r = await stack.kubectl(['apply', '-f', '-'], yaml);
      if (r.code !== 0) throw new Error(`kubectl apply failed: ${r.stderr}`);
    };
    return {
      stack, kc, core: kc.makeApiClient(k8s.CoreV1Api), custom: kc.makeApiClient(k8s.CustomObjectsApi), moto, vpc, proxy, ssm, kubelets, kubernetesVersion, apply,
      startKarpenter: async (extra = {}) => {
        const k = await startKarpenter({ stack, clusterName, region: moto.region, credentials: moto.credentials, awsEndpoint: proxy.endpoint, ssmEndpoint: ssm.endpoint, ...extra });
        karpenters.push(k);
        return k;
      },
      logTails: () => `${stack.logTails(40)}\n${karpenters.map((k) => `--- karpenter (${k.component.logPath}) ---\n${k.component.tail(60)}`).join('\n')}\n--- moto ---\n${moto.tail(20)}\n--- kubelet stand-in --- registered ${kubelets.registered.join(', ')}; last error: ${kubelets.lastError() ?? 'none'}`,
      stop: stopAll,
    };
  } catch (error) {
    const report = stack.logTails(60);
    await stopAll();
    throw new Error(`starting the Karpenter world failed\n${report}`, { cause: error });
  }
}
