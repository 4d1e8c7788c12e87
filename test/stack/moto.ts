import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  CreateSecurityGroupCommand,
  CreateSubnetCommand,
  CreateTagsCommand,
  CreateVpcCommand,
  EC2Client,
} from '@aws-sdk/client-ec2';
import { CreateRoleCommand, IAMClient } from '@aws-sdk/client-iam';
import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { seedAl2023Images, type EksImage } from './eks-images.js';
import { freePort } from './free-port.js';

/** A running moto server on loopback; `stop()` kills its whole process group. */
export interface Moto {
  readonly endpoint: string;
  readonly region: string;
  readonly port: number;
  readonly logPath: string;
  /** moto accepts any credentials; these keep the SDK from searching the environment. */
  readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string };
  /** Last lines of moto's log, for a failing test's report. */
  tail(lines?: number): string;
  stop(): Promise<void>;
}

export interface StartMotoOptions {
  readonly region?: string;
  /** Folder for moto.log; a fresh temp folder when unset. */
  readonly logDir?: string;
  /** The virtualenv made by test/stack/install-moto.sh. */
  readonly venv?: string;
  readonly readyTimeoutMs?: number;
}

/** The virtualenv test/stack/install-moto.sh makes, where moto runs from unless a test names another. */
export const motoVenv = resolve(import.meta.dirname, '../../.cache/venv');
const live = new Set<ChildProcess>();

// A test that crashes before its teardown must not leave moto running.
process.once('exit', () => {
  for (const child of live) killGroup(child, 'SIGKILL');
});

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

async function waitUntilAnswering(
  endpoint: string,
  child: ChildProcess,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`moto exited with code ${child.exitCode}`);
    try {
      const res = await fetch(`${endpoint}/moto-api/`, { signal: AbortSignal.timeout(1_000) });
      await res.body?.cancel();
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`moto did not answer on ${endpoint} within ${timeoutMs} ms`);
}

function stopper(child: ChildProcess): () => Promise<void> {
  return async () => {
    if (!live.has(child)) return;
    live.delete(child);
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((r) =>
      child.once('exit', () => {
        r();
      }),
    );
    killGroup(child, 'SIGTERM');
    const timer = setTimeout(() => {
      killGroup(child, 'SIGKILL');
    }, 3_000);
    await exited;
    clearTimeout(timer);
  };
}

/** The region moto is started in unless a test names another. */
export const defaultMotoRegion = 'us-west-2';

async function startOnce(options: StartMotoOptions, logDir: string): Promise<Moto> {
  const region = options.region ?? defaultMotoRegion;
  const port = await freePort();
  const logPath = join(logDir, 'moto.log');
  const log = createWriteStream(logPath, { flags: 'a' });
  const bin = join(options.venv ?? motoVenv, 'bin/moto_server');
  // detached: moto leads its own process group, so stop() also reaches its werkzeug children.
  const child = spawn(bin, ['-H', '127.0.0.1', '-p', String(port)], {
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  child.stdout.pipe(log, { end: false });
  child.stderr.pipe(log, { end: false });
  child.once('error', (e) => log.write(`spawn failed: ${e.message}\n`));
  live.add(child);
  const stop = stopper(child);
  const endpoint = `http://127.0.0.1:${port}`;
  try {
    await waitUntilAnswering(endpoint, child, options.readyTimeoutMs ?? 30_000);
  } catch (e: unknown) {
    await stop();
    throw new Error(`starting moto: ${(e as Error).message}\n${tail(logPath, 30)}`, { cause: e });
  }
  return {
    endpoint,
    region,
    port,
    logPath,
    credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' },
    tail: (lines = 40) => tail(logPath, lines),
    stop,
  };
}

function tail(path: string, lines: number): string {
  try {
    return readFileSync(path, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

/**
 * Starts moto's server on a free loopback port and waits until it answers. A port race (another
 * process grabbing the port between our probe and moto's bind) is retried on a new port.
 * Callers register `t.teardown(moto.stop)`.
 */
export async function startMoto(options: StartMotoOptions = {}): Promise<Moto> {
  const logDir = options.logDir ?? mkdtempSync(join(tmpdir(), 'nodesmith-moto-'));
  let last: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return await startOnce(options, logDir);
    } catch (e: unknown) {
      last = e;
    }
  }
  throw last;
}

/** SDK clients for a moto server, with the SDK's retries off so faults surface at once. */
export function motoClients(moto: Moto): { ec2: EC2Client; ssm: SSMClient } {
  const config = {
    endpoint: moto.endpoint,
    region: moto.region,
    credentials: moto.credentials,
    maxAttempts: 1,
  };
  return { ec2: new EC2Client(config), ssm: new SSMClient(config) };
}

/** What seedVpc created; tags match the NodeClass selectors tests use. */
export interface SeededVpc {
  readonly vpcId: string;
  readonly discoveryTag: { readonly key: string; readonly value: string };
  /** zone → subnet ids; zone a has a large and a small subnet to exercise the free-IP choice. */
  readonly subnets: readonly {
    readonly id: string;
    readonly zone: string;
    readonly cidr: string;
  }[];
  readonly securityGroup: { readonly id: string; readonly name: string };
  /** What stands for `/aws/service` in the alias parameters (moto reserves `/aws/…`): the amiParameterPrefix option. */
  readonly amiParameterPrefix: string;
  /** Where the EKS AL2023 alias parameters were copied: `<amiParameterPrefix>/eks/optimized-ami`. */
  readonly eksAmiParameterPrefix: string;
  readonly kubernetesVersion: string;
  /** The standard AL2023 image of each architecture. */
  readonly amis: { readonly amd64: string; readonly arm64: string };
  /** Every AL2023 image the alias parameters name: standard, nvidia and neuron, as EKS publishes them. */
  readonly images: readonly EksImage[];
  /** The IAM role the test EC2NodeClasses name in `role:`. */
  readonly nodeRole: string;
}

/** The node role, as a user creates it before applying an EC2NodeClass with `role:`. */
async function createNodeRole(moto: Moto, name: string): Promise<void> {
  const iam = new IAMClient({ endpoint: moto.endpoint, region: moto.region, credentials: moto.credentials, maxAttempts: 1 });
  const trust = { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Principal: { Service: 'ec2.amazonaws.com' }, Action: 'sts:AssumeRole' }] };
  try {
    await iam.send(new CreateRoleCommand({ RoleName: name, AssumeRolePolicyDocument: JSON.stringify(trust) }));
  } finally {
    iam.destroy();
  }
}

const subnetLayout = [
  { zone: 'a', cidr: '10.0.0.0/20' },
  { zone: 'a', cidr: '10.0.16.0/24' },
  { zone: 'b', cidr: '10.0.32.0/20' },
  { zone: 'c', cidr: '10.0.48.0/20' },
];

/**
 * A VPC with subnets in three zones and a security group, all tagged
 * `karpenter.sh/discovery=<clusterName>`, plus the AL2023 alias parameters and images (standard, nvidia, neuron) that
 * moto lacks.
 */
export async function seedVpc(
  moto: Moto,
  clusterName: string,
  kubernetesVersion = '1.33',
): Promise<SeededVpc> {
  const { ec2, ssm } = motoClients(moto);
  const discoveryTag = { key: 'karpenter.sh/discovery', value: clusterName };
  const Tags = [{ Key: discoveryTag.key, Value: discoveryTag.value }];
  const vpc = await ec2.send(new CreateVpcCommand({ CidrBlock: '10.0.0.0/16' }));
  const vpcId = vpc.Vpc?.VpcId ?? '';
  const subnets = [];
  for (const s of subnetLayout) {
    const zone = `${moto.region}${s.zone}`;
    const out = await ec2.send(
      new CreateSubnetCommand({ VpcId: vpcId, CidrBlock: s.cidr, AvailabilityZone: zone }),
    );
    const id = out.Subnet?.SubnetId ?? '';
    await ec2.send(
      new CreateTagsCommand({
        Resources: [id],
        Tags: [...Tags, { Key: 'Name', Value: `${clusterName}-${s.cidr}` }],
      }),
    );
    subnets.push({ id, zone, cidr: s.cidr });
  }
  const sgName = `${clusterName}-nodes`;
  const sg = await ec2.send(
    new CreateSecurityGroupCommand({ GroupName: sgName, Description: 'nodes', VpcId: vpcId }),
  );
  await ec2.send(new CreateTagsCommand({ Resources: [sg.GroupId ?? ''], Tags }));
  const amiParameterPrefix = '/nodesmith-test';
  const eksAmiParameterPrefix = `${amiParameterPrefix}/eks/optimized-ami`;
  const standard = { x86_64: '', arm64: '' };
  for (const arch of ['x86_64', 'arm64'] as const) {
    const source = `/aws/service/ami-amazon-linux-latest/al2023-ami-kernel-default-${arch}`;
    standard[arch] = (await ssm.send(new GetParameterCommand({ Name: source }))).Parameter?.Value ?? '';
  }
  const images = await seedAl2023Images({ ec2, ssm, region: moto.region }, standard, eksAmiParameterPrefix, kubernetesVersion);
  const amis = { amd64: standard.x86_64, arm64: standard.arm64 };
  ec2.destroy();
  ssm.destroy();
  const nodeRole = 'nodesmith-node-role';
  await createNodeRole(moto, nodeRole);
  return {
    nodeRole,
    vpcId,
    discoveryTag,
    subnets,
    securityGroup: { id: sg.GroupId ?? '', name: sgName },
    amiParameterPrefix,
    eksAmiParameterPrefix,
    kubernetesVersion,
    amis,
    images,
  };
}
