/** Why and by which command a node is being disrupted, as set by the disruption controller. */
export interface DisruptionMark {
  /** Karpenter's reason: Empty, Drifted, Underutilized, Expired, Interrupted … */
  readonly reason: string;
  /** The command's id, so Events and logs can name it. */
  readonly command: string;
}

/**
 * Marks the provisioner sets on nodes in-process. Each one is seen by every reader of the model at once (the
 * extender's next filter call), while the taint or deletion that tells other replicas is still on its way
 * through the API server and back through the watch.
 */
export class NodeMarks {
  readonly #disruption = new Map<string, DisruptionMark>();
  readonly #deleting = new Set<string>();
  /** Node → pods nominated to it, and until when (ms) the nomination holds. */
  readonly #nominated = new Map<string, { readonly pods: ReadonlySet<string>; readonly untilMs: number }>();
  readonly #onChange: (nodeName: string) => void;

  /** `onChange` hears of every mark set or removed, so the model can refresh what the extender reads. */
  constructor(onChange: (nodeName: string) => void = () => undefined) {
    this.#onChange = onChange;
  }

  markForDisruption(nodeName: string, mark: DisruptionMark): void {
    this.#disruption.set(nodeName, mark);
    this.#onChange(nodeName);
  }

  unmarkDisruption(nodeName: string): void {
    if (this.#disruption.delete(nodeName)) this.#onChange(nodeName);
  }

  disruptionOf(nodeName: string): DisruptionMark | undefined {
    return this.#disruption.get(nodeName);
  }

  markDeleting(nodeName: string): void {
    this.#deleting.add(nodeName);
    this.#onChange(nodeName);
  }

  /** A disruption command that rolls back after its replacements launched gives the node back. */
  unmarkDeleting(nodeName: string): void {
    if (this.#deleting.delete(nodeName)) this.#onChange(nodeName);
  }

  isMarkedDeleting(nodeName: string): boolean {
    return this.#deleting.has(nodeName);
  }

  nominate(nodeName: string, pods: Iterable<string>, untilMs: number): void {
    this.#nominated.set(nodeName, { pods: new Set(pods), untilMs });
  }

  /** The pods nominated to the node whose nomination still holds at `nowMs`. */
  nominatedPods(nodeName: string, nowMs: number): ReadonlySet<string> {
    const nomination = this.#nominated.get(nodeName);
    if (nomination === undefined) return new Set();
    if (nomination.untilMs <= nowMs) {
      this.#nominated.delete(nodeName);
      return new Set();
    }
    return nomination.pods;
  }

  /** A mark that closes the node to new pods, described for the extender's reply; undefined when none does. */
  closedReason(nodeName: string): string | undefined {
    if (this.#deleting.has(nodeName)) return 'node is marked for deletion';
    const mark = this.#disruption.get(nodeName);
    return mark === undefined ? undefined : `node is being disrupted (${mark.reason}, command ${mark.command})`;
  }

  /** Every mark on the node goes with it. */
  forget(nodeName: string): void {
    this.#disruption.delete(nodeName);
    this.#deleting.delete(nodeName);
    this.#nominated.delete(nodeName);
  }

  /** Names of the nodes marked for disruption. */
  disrupting(): IterableIterator<string> {
    return this.#disruption.keys();
  }
}
