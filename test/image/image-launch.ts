import { execFile } from 'node:child_process';
import { chmod, copyFile, mkdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { nodesmithCacheRoot } from '../stack/cache-root.js';

const run = promisify(execFile);

/** Where the container sees the files it is given (read-only). */
export const configMount = '/nodesmith-config';

/** The storage test/image/build-image.sh builds into: vfs, no daemon, under the nodesmith cache. */
function buildahArgs(): string[] {
  const cache = nodesmithCacheRoot();
  return ['--root', join(cache, 'image', 'storage'), '--runroot', join(cache, 'image', 'run'), '--storage-driver', 'vfs'];
}

const buildahEnv = { ...process.env, BUILDAH_ISOLATION: 'chroot' };

async function buildah(args: readonly string[]): Promise<string> {
  const { stdout } = await run('buildah', [...buildahArgs(), ...args], { env: buildahEnv, maxBuffer: 16 * 1024 * 1024 });
  return stdout.trim();
}

/**
 * nodesmith's image as a process on this machine: `buildah run` of the image's own ENTRYPOINT (its node flags),
 * with its own user and environment, on the host's network so it reaches the local API server and moto.
 */
export interface ImageLaunch {
  readonly file: string;
  /** The command line for nodesmith arguments, with these extra environment variables. */
  args(nodesmithArgs: readonly string[], env: Readonly<Record<string, string>>): string[];
  readonly env: NodeJS.ProcessEnv;
  /** The container's path of a file given to it. */
  inside(hostPath: string): string;
  dispose(): Promise<void>;
}

/**
 * Prepares a working container of the image and copies `files` (kubeconfig, TLS) into a directory the image's
 * non-root user can read, mounted read-only at {@link configMount}.
 */
export async function imageLaunch(image: string, files: readonly string[], workDir: string): Promise<ImageLaunch> {
  // buildah 1.28's --format has no json function: read the whole inspection.
  const inspected = JSON.parse(await buildah(['inspect', '--type', 'image', image])) as { OCIv1?: { config?: { Entrypoint?: unknown } } };
  const entrypoint = inspected.OCIv1?.config?.Entrypoint;
  if (!Array.isArray(entrypoint) || entrypoint.length === 0 || !entrypoint.every((a) => typeof a === 'string')) throw new Error(`image ${image} has no exec-form ENTRYPOINT: ${JSON.stringify(entrypoint)}`);
  const dir = join(workDir, 'image-config');
  await mkdir(dir, { recursive: true });
  await chmod(dir, 0o755);
  for (const file of files) {
    const copy = join(dir, basename(file));
    await copyFile(file, copy);
    await chmod(copy, 0o644);
  }
  const container = await buildah(['from', '--pull-never', image]);
  return {
    file: 'buildah',
    env: buildahEnv,
    args: (nodesmithArgs, env) => [
      ...buildahArgs(), 'run', '--network', 'host', '--volume', `${dir}:${configMount}:ro`,
      ...Object.entries(env).flatMap(([k, v]) => ['--env', `${k}=${v}`]),
      container, '--', ...entrypoint, ...nodesmithArgs,
    ],
    inside: (hostPath) => `${configMount}/${basename(hostPath)}`,
    dispose: async () => { await buildah(['rm', container]); },
  };
}
