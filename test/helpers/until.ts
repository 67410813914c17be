/**
 * Waits for something that happens in its own time (a worker taking a task, a cooldown
 * running out, a socket closing) instead of sleeping a fixed time that a loaded machine can
 * outrun. Resolves true once `check` holds, false if it still does not after `timeoutMs`:
 * the test's own expect then fails, showing what it found.
 */
export async function until(check: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > end) return false;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
