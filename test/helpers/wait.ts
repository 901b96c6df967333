// Waiting for something another process or thread does, without a figure on wall time: poll until
// it holds, with a bound so generous (30 s) that only a hang reaches it, and never as the assertion.
export const GENEROUS_MS = 30_000;

export async function until(condition: () => boolean, what: string, boundMs = GENEROUS_MS): Promise<void> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > boundMs) throw new Error(`still waiting after ${boundMs / 1000} s for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
