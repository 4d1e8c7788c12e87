import * as k8s from '@kubernetes/client-node';
import { scaleDeployment } from '../e2e/disruption-support.js';
import type { ProductStack } from '../e2e/product-stack.js';
import type { Invariants } from './invariants.js';
import type { Prng } from './prng.js';
import { Tally } from './tally.js';
import { job, pdb, revisionLabel, soakApps, type SoakApp } from './workload.js';

/** What churn does to the workload, as a person running it would: the seed decides which and when. */
export class Churn {
  private readonly product: ProductStack;
  private readonly prng: Prng;
  private readonly invariants: Invariants;
  private readonly log: (line: string) => void;
  readonly counts = new Tally();
  readonly #apps: readonly SoakApp[] = soakApps();
  readonly #replicas = new Map(this.#apps.map((a) => [a.spec.name, a.spec.replicas]));
  #jobs = 0;
  #revision = 0;
  #webGuarded = false;

  constructor(product: ProductStack, prng: Prng, invariants: Invariants, log: (line: string) => void) {
    this.product = product;
    this.prng = prng;
    this.invariants = invariants;
    this.log = log;
  }

  /** One seeded step; a step the API refuses (nodesmith's webhooks down during a restart) is counted, not fatal. */
  async step(): Promise<void> {
    const kind = this.prng.weighted({ scale: 6, job: 2, pdb: 1, drift: 1 });
    try {
      if (kind === 'scale') await this.#scale();
      else if (kind === 'job') await this.#job();
      else if (kind === 'pdb') await this.#togglePdb();
      else await this.#drift();
    } catch (error) {
      this.counts.add(`${kind} refused`);
      this.log(`churn ${kind} refused: ${error instanceof Error ? error.message.split('\n')[0] ?? '' : String(error)}`);
    }
  }

  async #scale(): Promise<void> {
    const app = this.prng.pick(this.#apps);
    const name = app.spec.name;
    const from = this.#replicas.get(name) ?? 0;
    let to = this.prng.int(app.min, app.max);
    if (to === from) to = from === app.max ? app.min : from + 1;
    this.invariants.noteChange(name);
    await scaleDeployment(this.product, name, to);
    this.#replicas.set(name, to);
    this.counts.add(to > from ? 'scale up' : 'scale down');
    this.log(`churn scale ${name} ${String(from)} -> ${String(to)}`);
  }

  async #job(): Promise<void> {
    const name = `batch-${String(++this.#jobs)}`;
    const pods = this.prng.int(1, 3);
    const pool = this.prng.pick(['soak', 'expiring'] as const);
    await this.product.kc.makeApiClient(k8s.BatchV1Api).createNamespacedJob({ namespace: 'default', body: job(name, pods, pool) });
    this.counts.add('job');
    this.log(`churn job ${name}: ${String(pods)} pods on ${pool}`);
  }

  /** A PDB on web comes and goes. */
  async #togglePdb(): Promise<void> {
    const policy = this.product.kc.makeApiClient(k8s.PolicyV1Api);
    this.invariants.noteChange('web');
    if (this.#webGuarded) await policy.deleteNamespacedPodDisruptionBudget({ namespace: 'default', name: 'web' });
    else await policy.createNamespacedPodDisruptionBudget({ namespace: 'default', body: pdb('web', 'web') });
    this.#webGuarded = !this.#webGuarded;
    this.counts.add(this.#webGuarded ? 'pdb created' : 'pdb deleted');
    this.log(`churn pdb web ${this.#webGuarded ? 'created' : 'deleted'}`);
  }

  /** A new template label on the general pool: every node it launched before is drifted. */
  async #drift(): Promise<void> {
    const revision = this.#revision + 1;
    const patch = { spec: { template: { metadata: { labels: { [revisionLabel]: String(revision) } } } } };
    await this.product.kc.makeApiClient(k8s.CustomObjectsApi).patchClusterCustomObject(
      { group: 'karpenter.sh', version: 'v1', plural: 'nodepools', name: 'soak', body: patch },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    this.#revision = revision;
    this.counts.add('nodepool drift edit');
    this.log(`churn nodepool soak template label ${revisionLabel}=${String(revision)} (drift)`);
  }
}
