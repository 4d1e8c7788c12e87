/**
 * client-node's generated clients return class instances with Date objects where the wire has RFC 3339
 * strings; the domain keeps the wire form (what kubectl shows). This is the one place that turns a client-node
 * value back into it: the tests read the cluster through client-node; nodesmith itself never does.
 */
export function toWire(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value)) as unknown;
}
