// A batch of exchanges as the run's thread posts it to a judging worker (lib/engine/judge-pool.ts):
// the worker reads back every exchange as the run recorded it (every field, the body's bytes, its
// digest); the bodies go through the worker's ring of shared memory, which never writes over a batch
// not yet answered; a large body is moved, not copied.
import { createHash } from 'node:crypto';
import { Worker, type Transferable } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { checksFor } from '../lib/checks/catalogue.js';
import { DEFAULT_NAMESPACES } from '../lib/contract/namespaces.js';
import { AHEAD, batchOf, IN_FLIGHT, JudgePool, movable, Ring, transfers, unbatched, type Batch } from '../lib/engine/judge-pool.js';
import { runConformance } from '../lib/engine/run.js';
import { recordedResponse, type Exchange } from '../lib/http/exchange.js';
import { Redactor } from '../lib/reporting/redact.js';

const request = { method: 'POST', url: 'http://svc.test/supportstateuser', headers: { 'content-type': 'application/json' } };
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

function exchanges(): Exchange[] {
  const large = Buffer.alloc(70 * 1024, 'x');
  return [
    // A small answer (its Buffer sits in Node's shared pool), a digest not yet taken, text a JSON
    // encoder could spell differently: a lone surrogate, a NUL, non-ASCII.
    { id: 'case-1.login', title: 'case 1', origin: { source: 'case', vouched: true, case: 1 }, startedAt: '2026-01-01T00:00:00.000Z', durationMs: 3,
      request: { ...request, body: '{"userName":"a\ud800b\u0000c 東京"}' },
      response: recordedResponse(200, { 'content-type': 'application/json; charset=utf-8', 'x-odd': 'é\ud83d' }, Buffer.from('{"userName":"東京"}')) },
    // No answer.
    { id: 'case-2.login', title: 'case 2', origin: { source: 'case', vouched: true, case: 2 }, startedAt: '2026-01-01T00:00:00.000Z', durationMs: 10000,
      request, error: { kind: 'refused', message: 'connection refused by 127.0.0.1:9' } },
    // A decoded answer: its digest and size those of the bytes received, not of the body.
    { id: 'har.3', title: 'har 3', origin: { source: 'har', vouched: false }, startedAt: '', durationMs: 0, attempts: 3, gaveUp: '429 Too Many Requests, gave up after 3 tries',
      request: { ...request, body: 'a\ufffdb', notUtf8At: 1 },
      response: { status: 429, headers: { 'content-encoding': 'gzip' }, body: Buffer.from('{}'), size: 22, sha256: 'ab'.repeat(32), contentCoding: { codings: ['gzip'], error: 'bad' } } },
    // An empty body.
    { id: 'probe.4', title: 'probe 4', origin: { source: 'probe', vouched: true }, startedAt: '', durationMs: 1, request,
      response: recordedResponse(204, {}, Buffer.alloc(0)) },
    // A body large enough to be moved.
    { id: 'generated.5', title: 'gen 5', origin: { source: 'generated', vouched: false, intent: 'invalid' }, startedAt: '', durationMs: 1, request,
      response: recordedResponse(500, { 'content-type': 'text/plain' }, large) },
  ];
}

/** An exchange as plain data, its response's digest read (from its getter or as it was). */
const plain = (ex: Exchange) => (ex.response ? { ...ex, response: { ...ex.response, body: [...ex.response.body], sha256: ex.response.sha256 } } : ex);

describe('a batch of exchanges posted to a judging worker', () => {
  it('reads back every exchange as recorded: fields, body bytes as a Buffer, digest and size', () => {
    const given = exchanges();
    const expected = given.map(plain);
    const jobs = given.map((ex, seq) => ({ seq, ex, move: movable(ex) }));
    expect(jobs.map((j) => j.move)).toEqual([false, false, false, false, true]);
    const ring = new Ring();
    const batch = batchOf(jobs, ring);
    const read = unbatched(structuredClone(batch, { transfer: transfers(batch) }), ring.memory);
    expect(read.map(plain)).toEqual(expected);
    for (const ex of read) if (ex.response) expect(Buffer.isBuffer(ex.response.body)).toBe(true);
    // A digest not taken before is taken on the worker from the same bytes.
    expect(read[0]!.response!.sha256).toBe(sha(Buffer.from('{"userName":"東京"}')));
    // The worker's record has its keys in the run's order.
    expect(JSON.stringify(read.map(plain))).toBe(JSON.stringify(expected));
  });

  it('writes the small bodies into the ring (not the 8 KiB pools they sit in), moves a large one, copies one the ring has no room for', () => {
    const given = exchanges();
    const ring = new Ring(32);
    ring.put(Buffer.alloc(20)); // held by an earlier batch not yet answered
    ring.seal();
    const batch = batchOf(given.map((ex, seq) => ({ seq, ex, move: movable(ex) })), ring);
    // 21 bytes do not fit in the 12 left; 2 and 0 do.
    expect(batch.spans).toEqual([-3, 0, -1, -1, 20, 22, 22, 22, -2, 1]);
    expect(batch.own.map((b) => b.byteLength)).toEqual([21, 70 * 1024]);
    structuredClone(batch, { transfer: transfers(batch) });
    // Moved: the run's thread no longer holds it; the copied body is its own still.
    expect(given[4]!.response!.body.byteLength).toBe(0);
    expect(given[0]!.response!.body.toString()).toBe('{"userName":"東京"}');
  });
});

describe('a worker\'s ring', () => {
  it('never writes over the bodies of a batch not yet answered, and wraps to reuse what answered batches held', () => {
    for (let seed = 1; seed <= 50; seed++) {
      let x = seed;
      const next = () => (x = (x * 48271) % 2147483647);
      const ring = new Ring(1000);
      /** Batches posted and not answered: each body's start and the bytes written there. */
      const held: { at: number; bytes: Buffer }[][] = [];
      let wrapped = 0;
      let last = 0;
      for (let step = 0; step < 400; step++) {
        if (held.length && (next() % 3 === 0 || held.length > 6)) {
          for (const { at, bytes } of held.shift()!) if (!Buffer.from(ring.memory, at, bytes.length).equals(bytes)) expect.fail(`seed ${seed}, step ${step}: the body at ${at} was written over`);
          ring.release();
          continue;
        }
        const batch: { at: number; bytes: Buffer }[] = [];
        for (let n = next() % 4; n > 0; n--) {
          const bytes = Buffer.alloc(next() % 300, String.fromCharCode(97 + (next() % 26)));
          const at = ring.put(bytes);
          if (at < 0) continue;
          if (at < last) wrapped++;
          last = at;
          if (at + bytes.length > 1000) expect.fail(`seed ${seed}, step ${step}: a body past the ring's end`);
          batch.push({ at, bytes });
        }
        ring.seal();
        held.push(batch);
      }
      expect(wrapped).toBeGreaterThan(5);
    }
  });
});

describe('a pool of one judging worker given 200 exchanges at once', () => {
  it('posts them in batches of at most IN_FLIGHT (not one message each) and folds every one, in order', async () => {
    const posts: number[] = [];
    const send = Worker.prototype.postMessage;
    Worker.prototype.postMessage = function (this: Worker, message: unknown, transfer?: readonly Transferable[]) {
      posts.push((message as Batch).seqs.length);
      send.call(this, message, transfer);
    };
    const folded: string[] = [];
    const pool = new JudgePool(1, checksFor(new Set(['har'])), { namespaces: DEFAULT_NAMESPACES },
      { program: 'cli/judge-worker', data: () => ({ showPersonalData: false, secrets: [], secretHeaders: [], fingerprints: new Redactor({ showPersonalData: false, secrets: [] }).shareFingerprints() }) },
      (ex, j) => { folded.push(`${ex.id} ${j.label}`); return []; });
    try {
      const given = Array.from({ length: 200 }, (_, i): Exchange => ({
        id: `har.${i + 1}`, title: 'login', origin: { source: 'har', vouched: false }, startedAt: '', durationMs: 0,
        request: { ...request, body: '{"userName":"jdoe.support"}' },
        response: recordedResponse(200, { 'content-type': 'application/json; charset=utf-8' }, Buffer.from(`{"userName":"user${i}"}`)),
      }));
      await Promise.all(given.map((ex) => pool.judge(ex)));
      expect(folded).toEqual(given.map((ex) => `${ex.id} SupportStateUserLoginRequest POST route -> JSON`));
      expect(posts.reduce((a, n) => a + n, 0)).toBe(200);
      expect(Math.max(...posts)).toBeLessThanOrEqual(IN_FLIGHT);
      expect(posts.length).toBeLessThanOrEqual(200 / 8);
    } finally {
      Worker.prototype.postMessage = send;
      await pool.close();
    }
  }, 60_000);
});

describe('a recording read without a turn of the event loop (--jobs 1)', () => {
  it('posts the worker its AHEAD exchanges before the run\'s thread judges the ones that find it behind', async () => {
    const events: string[] = [];
    const send = Worker.prototype.postMessage;
    Worker.prototype.postMessage = function (this: Worker, message: unknown, transfer?: readonly Transferable[]) {
      events.push(`post ${(message as Batch).seqs.length}`);
      send.call(this, message, transfer);
    };
    try {
      const recorded = Array.from({ length: 40 }, (_, i): Exchange => ({
        id: `har.${i + 1}`, title: 'login', origin: { source: 'har', vouched: false }, startedAt: '', durationMs: 0,
        request: { ...request, body: '{"userName":"jdoe.support"}' },
        response: recordedResponse(200, { 'content-type': 'application/json; charset=utf-8' }, Buffer.from(`{"userName":"user${i}"}`)),
      }));
      const result = await runConformance({
        baseUrl: 'http://svc.test', recorded, mode: 'traffic', probes: false, namespaces: DEFAULT_NAMESPACES, values: {}, extraHeaders: {},
        timeoutMs: 1000, maxBodyBytes: 1 << 20, observe: () => { events.push('here'); }, jobs: 1, judgedBeforeWorkers: 7,
        judgeWorker: { program: 'cli/judge-worker', data: () => ({ showPersonalData: false, secrets: [], secretHeaders: [], fingerprints: new Redactor({ showPersonalData: false, secrets: [] }).shareFingerprints() }) },
      });
      expect(result.counts.exchanges).toBe(40);
      expect(events).toEqual([...Array(7).fill('here'), `post ${AHEAD}`, ...Array(40 - 7 - AHEAD).fill('here')]);
    } finally {
      Worker.prototype.postMessage = send;
    }
  }, 60_000);
});
