import { CoreV1Api, KubeConfig, makeInformer, type V1Node, type V1Pod } from '@kubernetes/client-node';
import type { ClusterEvent, ClusterWatch } from '../../provisioner/index.js';
import { toDomainNode, toDomainPod } from './domain-objects.js';

interface InformerLike {
  on(verb: 'error', cb: (err?: unknown) => void): void;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** How long to wait before re-listing after a watch error; client-node informers do not restart by themselves. */
const restartDelayMs = 2_000;

/**
 * Nodes and pods from the API server as ClusterEvents, for an extender that runs apart from the provisioner
 * (`nodesmith extender`). It sees no plans: virtual nodes are then rejected ("no plan") and only real nodes
 * are used. In the provisioner's process the provisioner's own ClusterWatch feeds plans as well.
 */
export class InformerClusterWatch implements ClusterWatch {
  readonly #kc: KubeConfig;

  constructor(kc: KubeConfig) {
    this.#kc = kc;
  }

  /** Loads a kubeconfig file, or the in-cluster / default configuration when no path is given. */
  static fromKubeconfig(path: string | undefined): InformerClusterWatch {
    const kc = new KubeConfig();
    if (path === undefined) kc.loadFromDefault();
    else kc.loadFromFile(path);
    return new InformerClusterWatch(kc);
  }

  subscribe(listener: (event: ClusterEvent) => void): () => void {
    const core = this.#kc.makeApiClient(CoreV1Api);
    const nodes = makeInformer<V1Node>(this.#kc, '/api/v1/nodes', () => core.listNode());
    const pods = makeInformer<V1Pod>(this.#kc, '/api/v1/pods', () => core.listPodForAllNamespaces());
    nodes.on('add', (node) => { listener({ kind: 'node-upserted', node: toDomainNode(node) }); });
    nodes.on('update', (node) => { listener({ kind: 'node-upserted', node: toDomainNode(node) }); });
    nodes.on('delete', (node) => { listener({ kind: 'node-deleted', name: node.metadata?.name ?? '' }); });
    pods.on('add', (pod) => { listener({ kind: 'pod-upserted', pod: toDomainPod(pod) }); });
    pods.on('update', (pod) => { listener({ kind: 'pod-upserted', pod: toDomainPod(pod) }); });
    pods.on('delete', (pod) => {
      listener({ kind: 'pod-deleted', namespace: pod.metadata?.namespace ?? '', name: pod.metadata?.name ?? '' });
    });
    let stopped = false;
    const timers = new Set<NodeJS.Timeout>();
    const keepRunning = (informer: InformerLike): Promise<void> => {
      informer.on('error', () => {
        if (stopped) return;
        const timer = setTimeout(() => {
          timers.delete(timer);
          if (!stopped) informer.start().catch(() => undefined);
        }, restartDelayMs);
        timers.add(timer);
      });
      return informer.start();
    };
    // start() resolves once the initial list is delivered; then the view may answer.
    void Promise.all([keepRunning(nodes), keepRunning(pods)]).then(() => {
      if (!stopped) listener({ kind: 'synced' });
    }, () => undefined);
    return () => {
      stopped = true;
      for (const timer of timers) clearTimeout(timer);
      void nodes.stop();
      void pods.stop();
    };
  }
}
