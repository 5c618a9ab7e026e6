// Waiting on a condition with a deadline instead of sleeping a fixed time: a test goes on as soon
// as the state it needs holds, and fails with what it waited for when it never does.

/** Resolves once `check` holds (polled every `everyMs`), or rejects naming `what` after `timeoutMs`. */
export async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000, everyMs = 10): Promise<void> {
  const end = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
