/**
 * client-node's generated clients return class instances with Date objects where the wire has RFC 3339
 * strings; the domain keeps the wire form (what kubectl shows). This is the one place that turns a client-node
 * value back into it. Hot paths (the informers, binds) never go through client-node's models at all.
 */
export function toWire(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value)) as unknown;
}
