import type { LabelSelector } from '../core/object-meta.js';
import { selectorMatches } from '../label-selector.js';

/** Pods matching one (namespaces, selector), counted per domain of one topology key. */
export class TopologyGroup {
  private readonly counts = new Map<string, number>();
  private sum = 0;

  constructor(
    readonly key: string,
    readonly namespaces: ReadonlySet<string> | undefined,
    readonly selector: LabelSelector,
  ) {}

  /** Whether a pod in `namespace` with `labels` is counted by this group. */
  matches(namespace: string, labels: Readonly<Record<string, string>>): boolean {
    return (this.namespaces === undefined || this.namespaces.has(namespace)) && selectorMatches(this.selector, labels);
  }

  count(domain: string): number {
    return this.counts.get(domain) ?? 0;
  }

  /** Matching pods in every domain. */
  get total(): number {
    return this.sum;
  }

  record(domain: string): void {
    this.counts.set(domain, this.count(domain) + 1);
    this.sum++;
  }
}

/** A stable key for a group. */
export function groupSignature(kind: string, key: string, namespaces: readonly string[] | undefined, selector: LabelSelector): string {
  return JSON.stringify([kind, key, namespaces === undefined ? null : [...namespaces].sort(), selector]);
}
