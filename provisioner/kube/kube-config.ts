import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { ExecCredentialSource } from './exec-credential.js';
import { defaultKubeconfigFiles, KubeconfigError, readKubeconfig, type KubeconfigSelection, type Material } from './kubeconfig-file.js';

export { KubeconfigError } from './kubeconfig-file.js';

/** TLS material and headers for one round of requests. */
export interface KubeCredentials {
  readonly ca?: string;
  readonly cert?: string;
  readonly key?: string;
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * Where the API server is and how to prove who we are. `credentials()` reads files again on each call (token
 * files and certificates rotate); the connection calls it every minute and after a 401, `invalidate()` first.
 */
export interface KubeTarget {
  readonly server: string;
  readonly proxyUrl?: string;
  readonly tlsServerName?: string;
  readonly insecureSkipTlsVerify: boolean;
  /** The context's namespace (in a pod: the pod's own), for callers that need a default. */
  readonly namespace?: string;
  /** Where this came from, for error messages: a file list or "in-cluster". */
  readonly source: string;
  credentials(): Promise<KubeCredentials>;
  invalidate(): void;
}

type Env = Readonly<Record<string, string | undefined>>;

/** Where to look: the process environment (read in main.ts) and the service account directory a pod gets. */
export interface KubeEnvironment {
  readonly env: Env;
  /** Default /var/run/secrets/kubernetes.io/serviceaccount; a parameter so tests can point elsewhere. */
  readonly serviceAccountRoot?: string;
}

const serviceAccountRoot = '/var/run/secrets/kubernetes.io/serviceaccount';

async function read(m: Material | undefined, what: string): Promise<string | undefined> {
  if (m === undefined) return undefined;
  if ('inline' in m) return m.inline;
  try {
    return await readFile(m.file, 'utf8');
  } catch (error) {
    throw new KubeconfigError(`reading ${what} ${m.file}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

function authorization(token: string | undefined, basic: KubeconfigSelection['basic']): Record<string, string> {
  if (token !== undefined && token !== '') return { authorization: `Bearer ${token}` };
  if (basic !== undefined) return { authorization: `Basic ${Buffer.from(`${basic.username}:${basic.password}`).toString('base64')}` };
  return {};
}

function defined<T extends Record<string, unknown>>(value: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as { [K in keyof T]?: Exclude<T[K], undefined> };
}

/** Builds a target from a kubeconfig's selected context; an exec plugin runs with `env`. */
export function targetFromSelection(s: KubeconfigSelection, env: Env = {}): KubeTarget {
  const exec = s.exec === undefined ? undefined : new ExecCredentialSource(s.exec, env);
  return {
    server: s.server, insecureSkipTlsVerify: s.insecureSkipTlsVerify, source: s.source,
    ...(s.proxyUrl === undefined ? {} : { proxyUrl: s.proxyUrl }), ...(s.tlsServerName === undefined ? {} : { tlsServerName: s.tlsServerName }),
    ...(s.namespace === undefined ? {} : { namespace: s.namespace }),
    async credentials() {
      const [ca, fileCert, fileKey, fileToken, plugin] = await Promise.all([
        read(s.ca, 'certificate-authority'), read(s.cert, 'client-certificate'), read(s.key, 'client-key'), read(s.token, 'tokenFile'), exec?.get(),
      ]);
      const headers = authorization(plugin?.token ?? fileToken?.trim(), s.basic);
      return { headers, ...defined({ ca, cert: plugin?.cert ?? fileCert, key: plugin?.key ?? fileKey }) };
    },
    invalidate() { exec?.invalidate(); },
  };
}

/** The pod's service account, when running in a cluster; undefined otherwise. */
export function inClusterTarget(environment: KubeEnvironment): KubeTarget | undefined {
  const root = environment.serviceAccountRoot ?? serviceAccountRoot;
  const host = environment.env['KUBERNETES_SERVICE_HOST'];
  const port = environment.env['KUBERNETES_SERVICE_PORT'] ?? '443';
  if (host === undefined || host === '' || !existsSync(`${root}/token`)) return undefined;
  const selection: KubeconfigSelection = {
    source: 'in-cluster', context: 'in-cluster', server: `https://${host.includes(':') ? `[${host}]` : host}:${port}`,
    insecureSkipTlsVerify: false, ca: { file: `${root}/ca.crt` }, token: { file: `${root}/token` },
  };
  const namespace = podNamespace(`${root}/namespace`);
  return targetFromSelection(namespace === undefined ? selection : { ...selection, namespace });
}

/** Read once at start-up: a pod's namespace never changes. The file is optional (a projected token may come without it). */
function podNamespace(file: string): string | undefined {
  try {
    const value = readFileSync(file, 'utf8').trim();
    return value === '' ? undefined : value;
  } catch {
    return undefined;
  }
}

/**
 * Finds the cluster as controller-runtime does: the given path, else KUBECONFIG, else the pod's service account,
 * else ~/.kube/config. Nothing found is an error that says where it looked, never a silent localhost.
 */
export function loadKubeConfig(path: string | undefined, environment: KubeEnvironment): KubeTarget {
  const { env } = environment;
  if (path !== undefined) return targetFromSelection(readKubeconfig([path]), env);
  const { files, fromEnv } = defaultKubeconfigFiles(env);
  if (fromEnv && files.length === 0) throw new KubeconfigError(`KUBECONFIG=${env['KUBECONFIG'] ?? ''} names no file that exists`);
  if (fromEnv) return targetFromSelection(readKubeconfig(files), env);
  const pod = inClusterTarget(environment);
  if (pod !== undefined) return pod;
  if (files.length > 0) return targetFromSelection(readKubeconfig(files), env);
  throw new KubeconfigError('no kubeconfig: pass --kubeconfig, set KUBECONFIG, run in a pod with a service account, or create ~/.kube/config');
}
