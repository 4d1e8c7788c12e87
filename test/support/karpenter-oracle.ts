import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A CreateFleet request as the oracle prints it: the SDK's shape, in Go's JSON (unset fields null). */
export interface FleetRequest {
  readonly LaunchTemplateConfigs?: readonly {
    readonly LaunchTemplateSpecification?: { readonly LaunchTemplateName?: string | null; readonly LaunchTemplateId?: string | null; readonly Version?: string | null } | null;
    readonly Overrides?: readonly { readonly InstanceType?: string | null; readonly AvailabilityZone?: string | null; readonly Priority?: number | null }[] | null;
  }[] | null;
  readonly TagSpecifications?: readonly { readonly ResourceType?: string | null; readonly Tags?: readonly { Key?: string; Value?: string }[] | null }[] | null;
}

/** Where build-karpenter.sh left the oracle, nodeadm and Karpenter's examples (cached by version). */
export interface KarpenterBuild {
  readonly oracle: string;
  readonly nodeadm: string;
  readonly examplesDir: string;
}

export async function karpenterBuild(): Promise<KarpenterBuild> {
  const script = fileURLToPath(new URL('../stack/build-karpenter.sh', import.meta.url));
  const { stdout } = await run('bash', [script, 'oracle'], { maxBuffer: 16 * 1024 * 1024 });
  const lines = stdout.trim().split('\n');
  const bin = lines.at(-1);
  // The build of this worktree's oracle sources, by its hash: other worktrees' builds sit beside it.
  const oracle = lines.find((l) => l.startsWith('oracle '))?.slice('oracle '.length);
  if (bin === undefined || bin === '' || oracle === undefined) throw new Error(`build-karpenter.sh printed no bin directory or oracle: ${stdout}`);
  return { oracle, nodeadm: join(bin, 'nodeadm'), examplesDir: join(bin, '..', 'examples', 'v1') };
}

/** The cluster both sides launch into: what Karpenter reads from its flags and the cluster. */
export interface OracleCluster {
  readonly name: string;
  readonly endpoint: string;
  /** Base64 PEM, as in a kubeconfig. */
  readonly caBundle: string;
  readonly serviceCidr: string;
  readonly kubeDnsIp: string;
  readonly region: string;
  readonly kubernetesVersion: string;
}

export interface OracleImage {
  readonly id: string;
  readonly name: string;
  readonly architecture: 'x86_64' | 'arm64';
  readonly creationDate: string;
  readonly tags?: Readonly<Record<string, string>>;
}

export interface OracleCase {
  readonly name: string;
  readonly nodeClass: unknown;
  readonly nodeClaim: unknown;
  readonly instanceTypes: readonly string[];
  readonly capacityType: 'on-demand' | 'spot' | 'reserved';
  /** With capacityType `reserved`: the reservation the launch goes into (its type's one offering, in the first subnet's zone). */
  readonly reservation?: { readonly id: string; readonly type: 'default' | 'capacity-block'; readonly interruptible: boolean };
  readonly cluster: OracleCluster;
  readonly securityGroups: readonly { id: string; name: string }[];
  readonly subnets: readonly { id: string; zone: string; zoneID: string }[];
  readonly instanceProfile: string;
  readonly images: readonly OracleImage[];
  /** The placement groups the account holds (DescribePlacementGroups). */
  readonly placementGroups?: readonly OraclePlacementGroup[];
}

export interface OraclePlacementGroup {
  readonly id: string;
  readonly name: string;
  readonly strategy: 'cluster' | 'partition' | 'spread';
  readonly partitionCount?: number;
}

/** One CreateLaunchTemplate request Karpenter would send, with the user data decoded. */
export interface OracleTemplate {
  readonly instanceTypes: string[];
  readonly imageId: string;
  readonly userData: string;
  readonly request: {
    readonly LaunchTemplateData: Record<string, unknown>;
    readonly TagSpecifications?: { ResourceType: string; Tags: { Key: string; Value: string }[] }[];
  };
}

export interface OracleResult {
  readonly name: string;
  readonly error?: string;
  /** Why Karpenter's EC2NodeClass validation would keep the class NotReady. */
  readonly refused?: string;
  readonly ssmParameters: Record<string, string>;
  /** null when Karpenter refused the class before resolving images (Go writes a nil slice as null). */
  readonly images: OracleImage[] | null;
  readonly amis: { id: string; name: string; requirements: unknown[] }[] | null;
  readonly maxPods: Record<string, number>;
  readonly launchTemplates: OracleTemplate[];
  /** The CreateFleet request Karpenter's instance provider sent (Go's field names; unset fields null). */
  readonly fleet?: FleetRequest;
}

async function runJson<T>(binary: string, args: string[], input: unknown): Promise<T> {
  const child = execFile(binary, args, { maxBuffer: 512 * 1024 * 1024, encoding: 'buffer' });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout?.on('data', (d: Buffer) => out.push(d));
  child.stderr?.on('data', (d: Buffer) => err.push(d));
  const done = new Promise<void>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve();
      else reject(new Error(`${binary} ${args.join(' ')} exited ${String(code)}: ${Buffer.concat(err).toString().slice(-4000)}`));
    });
  });
  child.stdin?.end(JSON.stringify(input));
  await done;
  return JSON.parse(Buffer.concat(out).toString('utf8')) as T;
}

export function runOracle(build: KarpenterBuild, cases: readonly OracleCase[]): Promise<OracleResult[]> {
  return runJson<OracleResult[]>(build.oracle, [], cases);
}

/**
 * User data as both sides are compared: MIME parts with NodeConfigs as objects, TOML as settings; each NodeConfig also
 * as nodeadm's own API types decode it (`decoded`, or `decodeErrors`), and Bottlerocket TOML as Karpenter's settings
 * struct reads it with unknown keys refused (`bottlerocket`, or `bottlerocketError`).
 */
export interface ParsedUserData {
  readonly format: 'mime' | 'toml' | 'text';
  readonly parts?: { contentType: string; nodeConfigs?: Record<string, unknown>[]; decoded?: Record<string, unknown>[]; decodeErrors?: string[]; text?: string }[];
  readonly settings?: Record<string, unknown>;
  readonly bottlerocket?: Record<string, unknown>;
  readonly bottlerocketError?: string;
  readonly text?: string;
  readonly error?: string;
  /** For MIME user data: nodeadm's own parser's verdict. */
  readonly nodeadm?: { valid: boolean; output: string };
}

export function parseUserData(build: KarpenterBuild, texts: readonly string[], withNodeadm: boolean): Promise<ParsedUserData[]> {
  return runJson<ParsedUserData[]>(build.oracle, ['-parse', ...(withNodeadm ? ['-nodeadm', build.nodeadm] : [])], texts);
}
