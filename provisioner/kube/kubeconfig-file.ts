import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path';
import { parse } from 'yaml';

/** The parts of an exec credential plugin entry we run (client.authentication.k8s.io). */
export interface ExecConfig {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly apiVersion: string;
  /** Where the kubeconfig that named the plugin lives: a relative command path is resolved from there. */
  readonly baseDir: string;
}

/** A secret that is either inline (the `-data` fields, already decoded) or a file read afresh each time. */
export type Material = { readonly inline: string } | { readonly file: string };

/** The selected context of a kubeconfig, with every file path made absolute. */
export interface KubeconfigSelection {
  readonly source: string;
  readonly context: string;
  readonly server: string;
  readonly namespace?: string;
  readonly proxyUrl?: string;
  readonly tlsServerName?: string;
  readonly insecureSkipTlsVerify: boolean;
  readonly ca?: Material;
  readonly cert?: Material;
  readonly key?: Material;
  readonly token?: Material;
  readonly basic?: { readonly username: string; readonly password: string };
  readonly exec?: ExecConfig;
}

type Entry = Record<string, unknown>;

interface Merged {
  readonly clusters: Map<string, { entry: Entry; dir: string }>;
  readonly users: Map<string, { entry: Entry; dir: string }>;
  readonly contexts: Map<string, Entry>;
  currentContext: string | undefined;
}

/** A kubeconfig that cannot be used, with the file and field that make it so. */
export class KubeconfigError extends Error {
  override readonly name = 'KubeconfigError';
}

function record(value: unknown): Entry | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Entry) : undefined;
}

function text(entry: Entry, key: string, where: string): string | undefined {
  const value = entry[key];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new KubeconfigError(`${where}.${key} must be a string`);
  return value;
}

/** Reads one file's clusters, users and contexts into the merge: as client-go does, the first file to name an entry wins. */
function mergeFile(merged: Merged, file: string): void {
  let doc: unknown;
  try {
    doc = parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new KubeconfigError(`kubeconfig ${file}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  const root = record(doc) ?? {};
  const dir = dirname(resolve(file));
  const named = (key: 'clusters' | 'users' | 'contexts', inner: string, add: (name: string, entry: Entry) => void): void => {
    const list = root[key] ?? [];
    if (!Array.isArray(list)) throw new KubeconfigError(`kubeconfig ${file}: ${key} must be a list`);
    for (const [i, item] of list.entries()) {
      const wrapper = record(item);
      const name = wrapper?.['name'];
      if (typeof name !== 'string' || name === '') throw new KubeconfigError(`kubeconfig ${file}: ${key}[${String(i)}].name is missing`);
      add(name, record(wrapper?.[inner]) ?? {});
    }
  };
  named('clusters', 'cluster', (name, entry) => { if (!merged.clusters.has(name)) merged.clusters.set(name, { entry, dir }); });
  named('users', 'user', (name, entry) => { if (!merged.users.has(name)) merged.users.set(name, { entry, dir }); });
  named('contexts', 'context', (name, entry) => { if (!merged.contexts.has(name)) merged.contexts.set(name, entry); });
  const current = root['current-context'];
  if (merged.currentContext === undefined && typeof current === 'string' && current !== '') merged.currentContext = current;
}

/** Where an entry sits: its dotted path for messages and the directory its relative paths start from. */
interface Place {
  readonly where: string;
  readonly dir: string;
}

function fileOrData(entry: Entry, keys: { file: string; data: string }, at: Place): Material | undefined {
  const data = text(entry, keys.data, at.where);
  if (data !== undefined) return { inline: Buffer.from(data, 'base64').toString('utf8') };
  const file = text(entry, keys.file, at.where);
  return file === undefined ? undefined : { file: isAbsolute(file) ? file : join(at.dir, file) };
}

function execConfig(value: unknown, where: string, dir: string): ExecConfig | undefined {
  const exec = record(value);
  if (exec === undefined) return undefined;
  const command = text(exec, 'command', `${where}.exec`);
  if (command === undefined) throw new KubeconfigError(`${where}.exec.command is missing`);
  const args = exec['args'] ?? [];
  if (!Array.isArray(args) || !args.every((a): a is string => typeof a === 'string')) throw new KubeconfigError(`${where}.exec.args must be a list of strings`);
  const env: Record<string, string> = {};
  for (const item of Array.isArray(exec['env']) ? exec['env'] : []) {
    const pair = record(item);
    if (typeof pair?.['name'] === 'string' && typeof pair['value'] === 'string') env[pair['name']] = pair['value'];
  }
  const apiVersion = text(exec, 'apiVersion', `${where}.exec`) ?? 'client.authentication.k8s.io/v1';
  return { command, args, env, apiVersion, baseDir: dir };
}

function userParts(user: Entry, where: string, dir: string): Pick<KubeconfigSelection, 'cert' | 'key' | 'token' | 'basic' | 'exec'> {
  const provider = record(user['auth-provider']);
  if (provider !== undefined) {
    const name = typeof provider['name'] === 'string' ? provider['name'] : '';
    throw new KubeconfigError(`${where}.auth-provider ${name} is not supported (it was removed from kubectl too): use an exec credential plugin`);
  }
  const at = { where, dir };
  const cert = fileOrData(user, { file: 'client-certificate', data: 'client-certificate-data' }, at);
  const key = fileOrData(user, { file: 'client-key', data: 'client-key-data' }, at);
  const inlineToken = text(user, 'token', where);
  const tokenFile = text(user, 'tokenFile', where);
  const token: Material | undefined = inlineToken !== undefined ? { inline: inlineToken } : tokenFile === undefined ? undefined : { file: isAbsolute(tokenFile) ? tokenFile : join(dir, tokenFile) };
  const username = text(user, 'username', where);
  const exec = execConfig(user['exec'], where, dir);
  return {
    ...(cert === undefined ? {} : { cert }), ...(key === undefined ? {} : { key }), ...(token === undefined ? {} : { token }),
    ...(username === undefined ? {} : { basic: { username, password: text(user, 'password', where) ?? '' } }),
    ...(exec === undefined ? {} : { exec }),
  };
}

function lookup<T>(map: ReadonlyMap<string, T>, name: string, what: string, source: string): T {
  const found = map.get(name);
  if (found === undefined) throw new KubeconfigError(`kubeconfig ${source}: ${what} "${name}", which is not among its ${what.split(' ').at(-1) ?? ''}s`);
  return found;
}

function clusterParts(cluster: { entry: Entry; dir: string }, clusterName: string, source: string): Pick<KubeconfigSelection, 'server' | 'insecureSkipTlsVerify' | 'ca' | 'proxyUrl' | 'tlsServerName'> {
  const where = `clusters.${clusterName}`;
  const server = text(cluster.entry, 'server', where);
  if (server === undefined) throw new KubeconfigError(`kubeconfig ${source}: ${where}.server is missing`);
  const ca = fileOrData(cluster.entry, { file: 'certificate-authority', data: 'certificate-authority-data' }, { where, dir: cluster.dir });
  const proxyUrl = text(cluster.entry, 'proxy-url', where);
  const tlsServerName = text(cluster.entry, 'tls-server-name', where);
  return {
    server, insecureSkipTlsVerify: cluster.entry['insecure-skip-tls-verify'] === true,
    ...(ca === undefined ? {} : { ca }), ...(proxyUrl === undefined ? {} : { proxyUrl }), ...(tlsServerName === undefined ? {} : { tlsServerName }),
  };
}

function select(merged: Merged, source: string): KubeconfigSelection {
  const contextName = merged.currentContext;
  if (contextName === undefined) throw new KubeconfigError(`kubeconfig ${source}: no current-context`);
  const context = merged.contexts.get(contextName);
  if (context === undefined) throw new KubeconfigError(`kubeconfig ${source}: current-context "${contextName}" is not among its contexts`);
  const where = `contexts.${contextName}`;
  const clusterName = text(context, 'cluster', where) ?? '';
  const cluster = lookup(merged.clusters, clusterName, `context "${contextName}" names cluster`, source);
  const userName = text(context, 'user', where);
  const user = userName === undefined ? undefined : lookup(merged.users, userName, `context "${contextName}" names user`, source);
  const namespace = text(context, 'namespace', where);
  return {
    source, context: contextName, ...clusterParts(cluster, clusterName, source), ...(namespace === undefined ? {} : { namespace }),
    ...(user === undefined ? {} : userParts(user.entry, `users.${userName ?? ''}`, user.dir)),
  };
}

/** Reads and merges kubeconfig files (in KUBECONFIG order) and returns the current context's connection. */
export function readKubeconfig(files: readonly string[]): KubeconfigSelection {
  const merged: Merged = { clusters: new Map(), users: new Map(), contexts: new Map(), currentContext: undefined };
  for (const file of files) mergeFile(merged, file);
  return select(merged, files.join(delimiter));
}

/** The kubeconfig files to read when no path is given: KUBECONFIG's existing entries, else ~/.kube/config if present. */
export function defaultKubeconfigFiles(env: Readonly<Record<string, string | undefined>>): { files: string[]; fromEnv: boolean } {
  const list = (env['KUBECONFIG'] ?? '').split(delimiter).filter((f) => f !== '');
  if (list.length > 0) return { files: list.filter((f) => existsSync(f)), fromEnv: true };
  const file = join(env['HOME'] ?? homedir(), '.kube', 'config');
  return { files: existsSync(file) ? [file] : [], fromEnv: false };
}
