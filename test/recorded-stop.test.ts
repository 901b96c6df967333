// The engine's side of a stopped recording: a recorded source that fails once the stop is aborted
// (harExchanges does, so that standard input never holds a stopped run) ends the run with what was
// judged, `stopped` set and the verdict incomplete, even when nothing was judged yet; a source that
// ended before the stop is judged as usual.
import { describe, expect, it } from 'vitest';
import { runConformance } from '../lib/engine/run.js';
import type { Exchange } from '../lib/http/exchange.js';
import { goodExchanges } from './helpers/exchanges.js';

/** Yields `exchanges`, then waits for more until `stop` aborts, and fails then, as a stopped HAR reader does. */
async function* unending(exchanges: readonly Exchange[], stop: AbortSignal, taken: () => void): AsyncGenerator<Exchange> {
  yield* exchanges;
  taken();
  await new Promise((_, reject) => {
    if (stop.aborted) reject(new Error('read no further'));
    stop.addEventListener('abort', () => reject(new Error('read no further')), { once: true });
  });
}

async function stoppedRun(exchanges: readonly Exchange[]) {
  const stop = new AbortController();
  const run = runConformance({ baseUrl: 'http://target.test', mode: 'traffic', probes: false, timeoutMs: 1000, maxBodyBytes: 1 << 20, recorded: unending(exchanges, stop.signal, () => stop.abort('SIGTERM')), stop: stop.signal, jobs: 0 });
  return run;
}

describe('a recorded source stopped', () => {
  it('after some exchanges: those judged, stopped SIGTERM, verdict incomplete', async () => {
    const exchanges = [...goodExchanges().values()].slice(0, 5);
    const result = await stoppedRun(exchanges);
    expect([result.stopped, result.verdict, result.counts.exchanges]).toEqual(['SIGTERM', 'incomplete', 5]);
  });

  it('before any exchange: stopped SIGTERM, verdict incomplete, not nothing-observed', async () => {
    const result = await stoppedRun([]);
    expect([result.stopped, result.verdict, result.counts.exchanges]).toEqual(['SIGTERM', 'incomplete', 0]);
  });

  it('that ended before the stop: not stopped, judged as usual', async () => {
    const stop = new AbortController();
    async function* ended() { yield* [...goodExchanges().values()].slice(0, 5); }
    const result = await runConformance({ baseUrl: 'http://target.test', mode: 'traffic', probes: false, timeoutMs: 1000, maxBodyBytes: 1 << 20, recorded: ended(), stop: stop.signal, jobs: 0 });
    stop.abort('SIGTERM');
    expect(result.stopped).toBeUndefined();
    expect(result.verdict).not.toBe('incomplete');
  });
});
