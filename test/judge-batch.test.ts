// A batch of exchanges as the run's thread posts it to a judging worker (lib/engine/judge-pool.ts):
// the worker reads back every exchange as the run recorded it (every field, the body's bytes, its
// digest), the bodies travel in one buffer of exactly their bytes, and a large body is moved, not copied.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { batchOf, movable, transfers, unbatched } from '../lib/engine/judge-pool.js';
import { recordedResponse, type Exchange } from '../lib/http/exchange.js';

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
    const batch = batchOf(jobs);
    const read = unbatched(structuredClone(batch, { transfer: transfers(batch) }));
    expect(read.map(plain)).toEqual(expected);
    for (const ex of read) if (ex.response) expect(Buffer.isBuffer(ex.response.body)).toBe(true);
    // A digest not taken before is taken on the worker from the same bytes.
    expect(read[0]!.response!.sha256).toBe(sha(Buffer.from('{"userName":"東京"}')));
    expect(JSON.stringify(read.map(plain))).toBe(JSON.stringify(expected));
  });

  it('carries the copied bodies in one buffer of exactly their bytes (not the 8 KiB pools they sit in), and moves a large body', () => {
    const given = exchanges();
    const batch = batchOf(given.map((ex, seq) => ({ seq, ex, move: movable(ex) })));
    expect(given[0]!.response!.body.buffer.byteLength).toBeGreaterThan(given[0]!.response!.body.byteLength);
    expect(batch.bytes.byteLength).toBe(Buffer.byteLength('{"userName":"東京"}') + 2);
    structuredClone(batch, { transfer: transfers(batch) });
    // Moved: the run's thread no longer holds it; the small bodies are its own still.
    expect(given[4]!.response!.body.byteLength).toBe(0);
    expect(given[0]!.response!.body.toString()).toBe('{"userName":"東京"}');
  });
});
