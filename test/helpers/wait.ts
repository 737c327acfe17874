/**
 * Polls `fn` every `everyMs` until it answers something truthy, and answers that; throws naming `what`
 * after `timeoutMs`. `fn` may be synchronous (a condition on what handlers collected).
 */
export async function waitFor<T>(
  fn: () => T | null | undefined | false | Promise<T | null | undefined | false>,
  what: string,
  timeoutMs = 20_000,
  everyMs = 50,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
