import { ApiException, CoreV1Api, type V1Binding } from '@kubernetes/client-node';
import { loadKubeConfig } from './kube-config.js';
import type { BindTarget, PodBinder } from '../index.js';
import { statusCode } from './api-status.js';

/** Field manager recorded on every Binding we create. */
const fieldManager = 'nodesmith';


/**
 * Creates pods/binding through the API server. `metadata.uid` makes the API server refuse the Binding if the
 * pod was deleted and re-created under the same name since kube-scheduler picked it. A 409 on a pod that is
 * already bound to the same node is the echo of an earlier attempt (a retried bind) and counts as success.
 */
export class KubePodBinder implements PodBinder {
  readonly #core: CoreV1Api;

  constructor(core: CoreV1Api) {
    this.#core = core;
  }

  /** Loads a kubeconfig file, or the in-cluster / default configuration when no path is given. */
  static fromKubeconfig(path: string | undefined): KubePodBinder {
    // Binds are the extender's hot path: a connection-reusing config saves a TLS handshake per pod.
    return new KubePodBinder(loadKubeConfig(path).makeApiClient(CoreV1Api));
  }

  async bind(target: BindTarget): Promise<void> {
    const body: V1Binding = {
      apiVersion: 'v1',
      kind: 'Binding',
      metadata: { name: target.name, namespace: target.namespace, ...(target.uid === '' ? {} : { uid: target.uid }) },
      target: { apiVersion: 'v1', kind: 'Node', name: target.nodeName },
    };
    try {
      // The pods/{name}/binding subresource, as kube-scheduler's own binder uses: the legacy /bindings resource
      // (createNamespacedBinding) wipes metadata.uid, so the UID precondition would silently not apply.
      await this.#core.createNamespacedPodBinding({ name: target.name, namespace: target.namespace, body, fieldManager });
    } catch (error) {
      if (statusCode(error) === 409 && (await this.#boundNode(target)) === target.nodeName) return;
      throw new Error(`creating binding of pod ${target.namespace}/${target.name} to node ${target.nodeName}: ${describe(error)}`, { cause: error });
    }
  }

  async #boundNode(target: BindTarget): Promise<string | undefined> {
    try {
      const pod = await this.#core.readNamespacedPod({ name: target.name, namespace: target.namespace });
      return pod.spec?.nodeName;
    } catch {
      return undefined;
    }
  }
}

/** The API server's Status message when there is one, else the error's own message. */
function describe(error: unknown): string {
  if (!(error instanceof ApiException)) return error instanceof Error ? error.message : String(error);
  const body: unknown = error.body;
  if (typeof body !== 'string') return `${error.code} ${error.message}`;
  return `${error.code} ${statusMessage(body) ?? body}`;
}

function statusMessage(body: string): string | undefined {
  try {
    const status = JSON.parse(body) as { message?: unknown };
    return typeof status.message === 'string' ? status.message : undefined;
  } catch {
    // not a Status object: the caller shows the raw text
    return undefined;
  }
}
