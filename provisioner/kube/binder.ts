import { ApiConnection, poolConnections } from './api-connection.js';
import type { KubeTarget } from './kube-config.js';
import { SendGate } from './send-gate.js';
import type { BindTarget, PodBinder } from '../index.js';

/** Field manager recorded on every Binding we create. */
const fieldManager = 'nodesmith';

/**
 * Creates pods/binding through the API server: the extender's hot path, one call per pod, so it has a pooled
 * ApiConnection of its own, apart from the controllers' writes. `metadata.uid` makes the API server
 * refuse the Binding if the pod was deleted and re-created under the same name since kube-scheduler picked
 * it. A 409 on a pod that is already bound to the same node is the echo of an earlier attempt (a retried bind)
 * and counts as success.
 *
 * Binds wait their turn for a connection here, not inside the pool, so that one whose caller gave up (kube-scheduler
 * stopped waiting: its extender httpTimeout) is dropped unsent. At 10,000 pods on two cores binds queued for minutes;
 * each one kube-scheduler abandoned and retried was still sent later and landed on a node whose room had been given
 * to other pods meanwhile (41 nodes over their allocatable in one run).
 */
export class KubePodBinder implements PodBinder {
  readonly #api: ApiConnection;
  readonly #gate = new SendGate(poolConnections);

  constructor(api: ApiConnection) {
    this.#api = api;
  }

  static fromKubeConfig(target: KubeTarget): KubePodBinder {
    return new KubePodBinder(new ApiConnection(target));
  }

  /** Rejects with NotSentError, having sent nothing, when `signal` aborts before a connection is free. */
  bind(target: BindTarget, signal?: AbortSignal): Promise<void> {
    return this.#gate.run(() => this.#bind(target), signal, target.retried === true);
  }

  async #bind(target: BindTarget): Promise<void> {
    const body = {
      apiVersion: 'v1',
      kind: 'Binding',
      metadata: {
        name: target.name, namespace: target.namespace, ...(target.uid === '' ? {} : { uid: target.uid }),
        ...(target.annotations === undefined ? {} : { annotations: target.annotations }),
      },
      target: { apiVersion: 'v1', kind: 'Node', name: target.nodeName },
    };
    // The pods/{name}/binding subresource, as kube-scheduler's own binder uses: the legacy /bindings resource
    // wipes metadata.uid, so the UID precondition would silently not apply.
    const path = `${podPath(target)}/binding?fieldManager=${fieldManager}`;
    let response;
    try {
      response = await this.#api.request('POST', path, body);
    } catch (error) {
      throw new Error(`creating binding of pod ${describeTarget(target)}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
    if (response.status >= 200 && response.status < 300) return;
    if (response.status === 409 && (await this.#boundNode(target)) === target.nodeName) return;
    throw new Error(`creating binding of pod ${describeTarget(target)}: ${String(response.status)} ${statusMessage(response.body) ?? response.body}`);
  }

  /** Closes the pooled connections. */
  close(): Promise<void> {
    return this.#api.close();
  }

  async #boundNode(target: BindTarget): Promise<string | undefined> {
    try {
      const response = await this.#api.request('GET', podPath(target));
      if (response.status !== 200) return undefined;
      const pod = JSON.parse(response.body) as { spec?: { nodeName?: unknown } };
      return typeof pod.spec?.nodeName === 'string' ? pod.spec.nodeName : undefined;
    } catch {
      // Unknown: the caller reports the original conflict.
      return undefined;
    }
  }
}

function podPath(target: BindTarget): string {
  return `/api/v1/namespaces/${encodeURIComponent(target.namespace)}/pods/${encodeURIComponent(target.name)}`;
}

function describeTarget(target: BindTarget): string {
  return `${target.namespace}/${target.name} to node ${target.nodeName}`;
}

/** The message of a metav1.Status body, when the body is one. */
function statusMessage(body: string): string | undefined {
  try {
    const status = JSON.parse(body) as { message?: unknown };
    return typeof status.message === 'string' ? status.message : undefined;
  } catch {
    // not a Status object: the caller shows the raw text
    return undefined;
  }
}
