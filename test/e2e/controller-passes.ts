/**
 * nodesmith's successful passes per controller, from controller-runtime's `controller_runtime_reconcile_total` on its
 * /metrics: what a test that watches "nothing happens for N passes" waits on, rather than a time sized on a period.
 */
export async function successfulPasses(healthUrl: string): Promise<Map<string, number>> {
  const text = await (await fetch(`${healthUrl}/metrics`)).text();
  const passes = new Map<string, number>();
  for (const m of text.matchAll(/^controller_runtime_reconcile_total\{controller="([^"]+)",result="success"\} (\d+)$/gm)) passes.set(m[1] ?? '', Number(m[2]));
  return passes;
}

/**
 * From now on: whether each named controller has made at least its number of successful passes more, and how many
 * each has made so far (for the test's message). A pass under way now may count, so ask one more than must be seen.
 */
export async function passesFromNow(healthUrl: string, wanted: Readonly<Record<string, number>>): Promise<() => Promise<{ done: boolean; made: Record<string, number> }>> {
  const start = await successfulPasses(healthUrl);
  return async () => {
    const now = await successfulPasses(healthUrl);
    const made = Object.fromEntries(Object.keys(wanted).map((name) => [name, (now.get(name) ?? 0) - (start.get(name) ?? 0)]));
    return { done: Object.entries(wanted).every(([name, n]) => (made[name] ?? 0) >= n), made };
  };
}
