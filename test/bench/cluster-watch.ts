// What the side-by-side bench reads off a cluster the same way whichever controller runs it: the instances (priced
// in race-prices.ts), the NodeClaims, the pods a controller disrupted, and how long nodes took to boot.
import * as k8s from '@kubernetes/client-node';
import { EC2Client, paginateDescribeInstances, type Instance } from '@aws-sdk/client-ec2';
import type { Moto } from '../stack/moto.js';

/** How many times a listing starts again from its first page before the bench gives up and reports the errors. */
const listingAttempts = 5;

/**
 * Running (or pending) instances tagged as the cluster's: both controllers tag kubernetes.io/cluster/<name>=owned.
 * moto pages DescribeInstances by reservation id and answers HTTP 500 when the reservation a NextToken names went
 * away between two pages (docs/moto-differences.md): under a scale-down that happens, so the listing starts again
 * from its first page, a few times, before the error is the bench's.
 */
export async function clusterInstances(moto: Moto, clusterName: string): Promise<Instance[]> {
  const ec2 = new EC2Client({ region: moto.region, endpoint: moto.endpoint, credentials: moto.credentials });
  const Filters = [{ Name: `tag:kubernetes.io/cluster/${clusterName}`, Values: ['owned'] }, { Name: 'instance-state-name', Values: ['running', 'pending'] }];
  const listOnce = async (): Promise<Instance[]> => {
    const out: Instance[] = [];
    for await (const page of paginateDescribeInstances({ client: ec2 }, { Filters })) out.push(...(page.Reservations ?? []).flatMap((r) => r.Instances ?? []));
    return out;
  };
  const errors: string[] = [];
  try {
    for (let attempt = 1; attempt <= listingAttempts; attempt++) {
      const listed = await listOnce().catch((error: unknown) => {
        errors.push(error instanceof Error ? error.message.split('\n')[0] ?? '' : String(error));
        return undefined;
      });
      if (listed !== undefined) return listed;
      if (attempt < listingAttempts) await new Promise((resolve) => setTimeout(resolve, 500 * attempt));
    }
    throw new Error(`listing the cluster's instances failed ${String(listingAttempts)} times: ${errors.join('; ')}`);
  } finally {
    ec2.destroy();
  }
}

/** NodeClaims as "name" or "name (deleting)", sorted: two equal lists mean nothing changed in between. */
export async function claimStates(custom: k8s.CustomObjectsApi): Promise<string[]> {
  const list = (await custom.listClusterCustomObject({ group: 'karpenter.sh', version: 'v1', plural: 'nodeclaims' })) as { items: { metadata: { name: string; deletionTimestamp?: string } }[] };
  return list.items.map((c) => `${c.metadata.name}${c.metadata.deletionTimestamp === undefined ? '' : ' (deleting)'}`).sort();
}

/** Live pods of the namespace (not being deleted). */
export async function livePods(core: k8s.CoreV1Api): Promise<k8s.V1Pod[]> {
  return (await core.listNamespacedPod({ namespace: 'default' })).items.filter((p) => p.metadata?.deletionTimestamp === undefined);
}

export interface PodArrivals {
  /** Pods first seen after the watch started that were not in `known`. */
  readonly added: ReadonlySet<string>;
  stop(): void;
}

/**
 * Pods the Deployments create from now on. A scale-down only deletes pods, so every pod created after it replaces a
 * remaining replica that a controller evicted or deleted: their number is the pods disrupted, whoever disrupted
 * them and however (eviction or delete), with no race against the scale-down's own deletions.
 */
export async function watchPodArrivals(kc: k8s.KubeConfig, known: ReadonlySet<string>): Promise<PodArrivals> {
  const added = new Set<string>();
  let stopped = false;
  let controller: AbortController | undefined;
  const start = async (): Promise<void> => {
    controller = await new k8s.Watch(kc).watch('/api/v1/namespaces/default/pods', {}, (_phase: string, pod: k8s.V1Pod) => {
      const uid = pod.metadata?.uid;
      if (uid !== undefined && !known.has(uid)) added.add(uid);
    }, () => { if (!stopped) void start().catch(() => undefined); });
  };
  await start();
  return { added, stop: () => { stopped = true; controller?.abort(); } };
}

/**
 * Seconds from each instance's launch to its Node's creation, as [median, max]: how long a node "booted" under each
 * controller, which must be the same for both for the times to compare. kwok makes a Node Ready as soon as it
 * exists (kwok-stages.yaml has no delay on node-ready), so creation is readiness; the Ready condition's own time is
 * no use, kwok's heartbeat rewrites it every 15 s. Both stamps have whole seconds.
 */
export function bootSeconds(instances: readonly Instance[], nodes: readonly k8s.V1Node[]): [number, number] {
  const launched = new Map(instances.map((i) => [i.InstanceId ?? '', i.LaunchTime?.getTime() ?? Number.NaN]));
  const delays = nodes.flatMap((n) => {
    const at = launched.get(n.spec?.providerID?.split('/').at(-1) ?? '');
    const created = n.metadata?.creationTimestamp;
    return at === undefined || created === undefined ? [] : [(new Date(created).getTime() - at) / 1000];
  }).sort((a, b) => a - b);
  return [delays[Math.floor(delays.length / 2)] ?? Number.NaN, delays.at(-1) ?? Number.NaN];
}
