/** Sets (or, with undefined, deletes) the value at a dotted path, creating objects on the way. For table-driven cases. */
export function setIn<T>(object: T, path: string, value: unknown): T {
  const keys = path.split('.');
  const last = keys.pop() ?? '';
  let node = object as Record<string, unknown>;
  for (const key of keys) {
    const next = node[key];
    if (next === null || typeof next !== 'object') node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  if (value === undefined) Reflect.deleteProperty(node, last);
  else node[last] = value;
  return object;
}
