/** The namespace every metric is registered under; `--metrics-namespace` renames it when served. */
export const registeredNamespace = 'nodesmith';

const validNamespace = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** Why a namespace cannot prefix Prometheus metric names, or undefined when it can. */
export function metricsNamespaceProblem(namespace: string): string | undefined {
  return validNamespace.test(namespace) ? undefined : `--metrics-namespace must be a Prometheus name ([a-zA-Z_][a-zA-Z0-9_]*); got "${namespace}"`;
}

/**
 * Serves the exposition text under another namespace: `nodesmith_x` becomes `<namespace>_x` in HELP, TYPE and
 * sample lines. Renaming at exposition keeps one set of instruments, registered once under constant names by the
 * code that emits them, whatever a deployment calls them (with `karpenter`, Karpenter's dashboards find them).
 */
export function renameMetricsNamespace(exposition: string, namespace: string): string {
  if (namespace === registeredNamespace) return exposition;
  const from = `${registeredNamespace}_`;
  const to = `${namespace}_`;
  return exposition
    .split('\n')
    .map((line) => {
      if (line.startsWith(from)) return to + line.slice(from.length);
      if (line.startsWith(`# HELP ${from}`) || line.startsWith(`# TYPE ${from}`)) return line.slice(0, 7) + to + line.slice(7 + from.length);
      return line;
    })
    .join('\n');
}
