/** Deeper than any real Kubernetes object; deeper values would overflow the stack of code that walks them. */
export const maxNestingDepth = 512;

/** How deep a value nests (a scalar is 0), counted without recursion and stopping once past `limit`. */
export function nestingDepth(value: unknown, limit = maxNestingDepth): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0 && deepest <= limit) {
    const [current, depth] = stack.pop() ?? [undefined, 0];
    if (typeof current !== 'object' || current === null) continue;
    deepest = Math.max(deepest, depth);
    for (const child of Object.values(current as Record<string, unknown>)) stack.push([child, depth + 1]);
  }
  return deepest;
}
