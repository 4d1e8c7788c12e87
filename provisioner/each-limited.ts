/**
 * Runs `work` on every item, at most `limit` at a time, and waits for all of them; then rejects with the first
 * failure, if any (every item is still tried). Bulk writes go through here so that they leave the API connection
 * pool to the writes that launch nodes and bind pods (a Promise.all over 1,000 virtual nodes took every connection).
 */
export async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  const failures: unknown[] = [];
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next] as T;
      next += 1;
      await work(item).catch((error: unknown) => { failures.push(error); });
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  if (failures.length > 0) throw failures[0];
}
