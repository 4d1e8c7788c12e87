import type { EC2NodeClass } from '../../domain/api/ec2nodeclass-schema.js';
import type { EC2NodeClassStatus } from '../../domain/api/ec2nodeclass-status-schema.js';
import type { NodeClassWriter } from '../../provisioner/ports/nodeclass-writer.js';

/** Applies writes to the same map the controller reads, as the informer would. */
export class FakeNodeClassWriter implements NodeClassWriter {
  private readonly classes: Map<string, EC2NodeClass>;
  constructor(classes: Map<string, EC2NodeClass>) {
    this.classes = classes;
  }
  readonly patches: string[] = [];

  patchStatus(name: string, status: Partial<EC2NodeClassStatus>): Promise<void> {
    this.patches.push(name);
    this.#edit(name, (nc) => ({ ...nc, status: { ...nc.status, ...status } }));
    return Promise.resolve();
  }

  addFinalizer(name: string, finalizer: string): Promise<void> {
    this.#edit(name, (nc) => ({ ...nc, metadata: { ...nc.metadata, finalizers: [...(nc.metadata.finalizers ?? []), finalizer] } }));
    return Promise.resolve();
  }

  removeFinalizer(name: string, finalizer: string): Promise<void> {
    const nc = this.classes.get(name);
    const finalizers = (nc?.metadata.finalizers ?? []).filter((f) => f !== finalizer);
    if (nc?.metadata.deletionTimestamp !== undefined && finalizers.length === 0) this.classes.delete(name);
    else this.#edit(name, (x) => ({ ...x, metadata: { ...x.metadata, finalizers } }));
    return Promise.resolve();
  }

  #edit(name: string, f: (nc: EC2NodeClass) => EC2NodeClass): void {
    const nc = this.classes.get(name);
    if (nc !== undefined) this.classes.set(name, f(nc));
  }
}

