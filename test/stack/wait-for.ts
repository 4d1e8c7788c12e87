/** Polls `probe` until it returns a value other than undefined, or throws after `timeoutMs` with `what`. */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  options: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      const cause = lastError instanceof Error ? `: ${lastError.message}` : '';
      throw new Error(`timed out waiting for ${what}${cause}`, { cause: lastError });
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 200));
  }
}
