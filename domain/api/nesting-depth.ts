/** Deeper than any real Kubernetes object; deeper values would overflow the stack of code that walks them. */
export const maxNestingDepth = 512;

/**
 * How deep a value nests (a scalar is 0), counted without recursion and stopping once past `limit`. It runs on
 * every extender request, so scalars (most of a body: names, quantities) are never pushed, and arrays are walked
 * without copying them.
 */
export function nestingDepth(value: unknown, limit = maxNestingDepth): number {
  if (typeof value !== 'object' || value === null) return 0;
  let deepest = 0;
  const objects: object[] = [value];
  const depths: number[] = [1];
  for (let current = objects.pop(); current !== undefined && deepest <= limit; current = objects.pop()) {
    const depth = depths.pop() ?? 0;
    deepest = Math.max(deepest, depth);
    const children: readonly unknown[] = Array.isArray(current) ? current : Object.values(current);
    for (const child of children) {
      if (typeof child === 'object' && child !== null) {
        objects.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return deepest;
}
