// When the run's thread judges an exchange itself (--jobs, lib/engine/judge-pool.ts): only while its
// worker has AHEAD exchanges it has not judged, as the worker counts them in shared memory; not while
// the worker's answers merely wait to be read here (the run's thread, busy sending, reads them late).
import { describe, expect, it } from 'vitest';
import { checksFor } from '../lib/checks/catalogue.js';
import { DEFAULT_NAMESPACES } from '../lib/contract/namespaces.js';
import { AHEAD, JudgePool } from '../lib/engine/judge-pool.js';
import type { Judgement } from '../lib/engine/run.js';
import { recordedResponse, type Exchange } from '../lib/http/exchange.js';
import { Redactor } from '../lib/reporting/redact.js';

const exchange = (i: number): Exchange => ({
  id: `har.${i + 1}`, title: 'login', origin: { source: 'har', vouched: false }, startedAt: '', durationMs: 0,
  request: { method: 'POST', url: 'http://svc.test/supportstateuser', headers: { 'content-type': 'application/json' }, body: '{"userName":"jdoe.support"}' },
  response: recordedResponse(200, { 'content-type': 'application/json; charset=utf-8' }, Buffer.from(`{"userName":"user${i}"}`)),
});

/** Blocks this thread (no turn of the event loop: no answer is read) until `done()`, at most 60 s. */
function blockUntil(done: () => boolean): void {
  const nap = new Int32Array(new SharedArrayBuffer(4));
  for (const end = Date.now() + 60_000; !done() && Date.now() < end;) Atomics.wait(nap, 0, 0, 2);
}

describe('a pool of one worker whose answers wait unread', () => {
  it('gives the worker the next AHEAD exchanges once it has judged its first AHEAD, and judges here the first one past them', async () => {
    const folded: string[] = [];
    const pool = new JudgePool(1, checksFor(new Set(['har'])), { namespaces: DEFAULT_NAMESPACES },
      { program: 'cli/judge-worker', data: () => ({ showPersonalData: false, secrets: [], secretHeaders: [], fingerprints: new Redactor({ showPersonalData: false, secrets: [] }).shareFingerprints() }) },
      (ex) => { folded.push(ex.id); return []; });
    const judgedHere: string[] = [];
    const here = (ex: Exchange): Judgement => { judgedHere.push(ex.id); return { label: 'here', looks: [] }; };
    try {
      const given = Array.from({ length: 3 * AHEAD }, (_, i) => exchange(i));
      const first = await Promise.all(given.slice(0, AHEAD).map((ex) => pool.submit(ex, here)));
      await new Promise((r) => setImmediate(r)); // the batch goes
      blockUntil(() => pool.unjudged(0) === 0);
      expect(pool.unjudged(0)).toBe(0);
      // Its answer is not read (no turn of the event loop since): the worker is not behind all the same.
      const rest = [];
      for (const ex of given.slice(AHEAD)) rest.push(await pool.submit(ex, here));
      // The second AHEAD all went to the worker; the first past them found it AHEAD behind (they were
      // still queued: posted only as this thread judges it). The worker may judge some of them while
      // this thread submits the rest: which of the rest it takes depends on that race.
      expect(judgedHere[0]).toBe(given[2 * AHEAD]!.id);
      expect(judgedHere.every((id) => given.findIndex((ex) => ex.id === id) >= 2 * AHEAD)).toBe(true);
      await Promise.all([...first, ...rest].map((s) => s.folded));
      expect(folded).toEqual(given.map((ex) => ex.id));
    } finally {
      await pool.close();
    }
  }, 120_000);
});
