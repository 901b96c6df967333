// The engine's side of a stopped recording: a recorded source that fails once the stop is aborted
// (harExchanges does, so that standard input never holds a stopped run) ends the run with what was
// judged, `stopped` set and the verdict incomplete, even when nothing was judged yet; a source that
// ended before the stop is judged as usual.
import { describe, expect, it } from 'vitest';
import { DEFAULT_NAMESPACES } from '../lib/contract/namespaces.js';
import { runConformance, type RunOptions } from '../lib/engine/run.js';
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

/** A traffic run of recorded exchanges, judged on this thread. */
const traffic: RunOptions = { baseUrl: 'http://target.test', namespaces: DEFAULT_NAMESPACES, values: {}, extraHeaders: {}, timeoutMs: 1000, maxBodyBytes: 1 << 20, mode: 'traffic', probes: false, jobs: 0 };

async function stoppedRun(exchanges: readonly Exchange[]) {
  const stop = new AbortController();
  return runConformance({ ...traffic, recorded: unending(exchanges, stop.signal, () => stop.abort('SIGTERM')), stop: stop.signal });
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
    const result = await runConformance({ ...traffic, recorded: ended(), stop: stop.signal });
    stop.abort('SIGTERM');
    expect(result.stopped).toBeUndefined();
    expect(result.verdict).not.toBe('incomplete');
  });
});
