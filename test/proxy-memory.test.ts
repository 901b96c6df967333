// The validating proxy's memory is bounded across every exchange in flight, not per exchange: the
// bytes copied for judging share one room (asked before anything is copied); past it an answer
// streams through whole and is counted as forwarded, not judged. Measured on the proxy's own
// process (its peak RSS, VmHWM) under 80 clients fetching a 9.5 MiB answer at once.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { platform, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JudgeQueue } from '../lib/cli/proxy-run.js';
import { startReference } from '../lib/reference/server.js';
import type { ForwardedExchange } from '../lib/traffic/proxy.js';
import { postDigest, servingProgram, stopMeasured, WITHOUT_HTML } from './helpers/cli.js';

const MB = 1024 * 1024;
const CLIENTS = 80;
const ROUNDS = 2;

describe('--proxy under 80 clients fetching a 9.5 MiB answer at once', () => {
  let target: Server;
  let targetUrl: string;
  let body: Buffer;
  beforeAll(async () => {
    // The reference's own record, its free-text release message grown to make the answer 9.5 MiB.
    const ref = await startReference();
    const sample = await (await fetch(`${ref.url}/supportstateuser`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"userName":"jdoe.support"}' })).json() as Record<string, unknown>;
    await ref.close();
    const size = Math.floor(9.5 * MB);
    body = Buffer.from(JSON.stringify({ ...sample, releaseMessage: 'r'.repeat(size - Buffer.byteLength(JSON.stringify({ ...sample, releaseMessage: '' }))) }));
    target = createServer((req, res) => {
      req.resume();
      req.on('end', () => { res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }); res.end(body); });
    });
    // Idle connections kept longer than the proxy's agent keeps them: a target closing one just as
    // the proxy reuses it resets that exchange (a 502), a race this test is not about.
    target.keepAliveTimeout = 60_000;
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  });
  afterAll(async () => { await new Promise((r) => target.close(r)); });

  it('every client gets the whole answer, peak RSS of the proxy stays under 300 MB, and what was not judged is counted', async (ctx) => {
    if (platform() !== 'linux') { ctx.annotate('not Linux: the peak RSS of a child process is read from /proc'); return; }
    expect(body.length).toBe(Math.floor(9.5 * MB));
    const dir = mkdtempSync(join(tmpdir(), 'proxy-memory-'));
    // Every output the proxy's own process writes; report.html is Allure's rendering in another
    // process, whose memory is not the proxy's.
    const s = servingProgram('cli/main', ['--proxy', '0', '--base-url', targetUrl, '--report-dir', dir, '--judge-priority', 'normal', ...WITHOUT_HTML]);
    try {
      const url = await s.url;
      const digest = createHash('sha256').update(body).digest('hex');
      const fetchOne = () => postDigest(`${url}/supportstateuser`, '{"userName":"jdoe.support"}');
      for (let round = 0; round < ROUNDS; round++) {
        expect(new Set(await Promise.all(Array.from({ length: CLIENTS }, fetchOne)))).toEqual(new Set([`200 ${digest}`]));
      }
      // The judge finishes what waits for it during the stop: the peak is read until the process is gone.
      const { code, peakMb: peak } = await stopMeasured(s);
      expect(code).toBe(0);
      ctx.annotate(`peak RSS of the proxy: ${Math.round(peak)} MB`);
      expect(peak).toBeLessThan(300);
      const forwarded = CLIENTS * ROUNDS;
      const note = new RegExp(`(\\d+) of ${forwarded} exchange\\(s\\) forwarded were not judged \\((\\d+)% judged\\): past the bound of 20 MiB copied for judging across the exchanges in flight`).exec(s.output());
      expect(note, s.output()).not.toBeNull();
      const unjudged = Number(note![1]);
      const judged = (JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as { counts: { exchanges: { exchanges: number } } }).counts.exchanges.exchanges;
      expect(judged).toBeGreaterThanOrEqual(1);
      expect(judged + unjudged).toBe(forwarded);
    } finally {
      s.child.kill('SIGKILL');
    }
  });
});

describe('the room for copies, shared by every exchange in flight and waiting for the judge', () => {
  const fx = (held: number): ForwardedExchange => ({ id: 'proxy.1', startedAt: 0, durationMs: 0, method: 'GET', url: 'http://x/', path: '/', requestHeaders: [], held });

  it('takes bytes up to its bound across exchanges, refuses past it, and is open again once bytes are given back', () => {
    const q = new JudgeQueue(10, 100, () => undefined);
    expect([q.open(), q.take(60), q.take(40), q.take(1), q.open()]).toEqual([true, true, true, false, false]);
    q.give(40);
    expect([q.open(), q.take(41), q.take(40), q.held]).toEqual([true, false, true, 100]);
  });

  it('holds the bytes of an exchange handed over until the judge has judged it, oldest first', () => {
    const sent: ForwardedExchange[] = [];
    const q = new JudgeQueue(10, 100, (e) => sent.push(e));
    q.take(70);
    q.take(30);
    expect([q.offer(fx(70)), q.offer(fx(30)), q.held, q.waiting]).toEqual([true, true, 100, 2]);
    q.judged();
    expect([q.held, q.waiting, q.open()]).toEqual([30, 1, true]);
    q.judged();
    expect([q.held, q.waiting, sent.length, q.unjudged]).toEqual([0, 0, 2, 0]);
  });

  it('past the count of exchanges waiting, or with no judge, an exchange is counted, not handed over, and its bytes given back', () => {
    const sent: ForwardedExchange[] = [];
    const q = new JudgeQueue(1, 100, (e) => sent.push(e));
    q.take(10);
    q.take(20);
    expect([q.offer(fx(10)), q.open(), q.offer(fx(20)), q.held]).toEqual([true, false, false, 10]);
    q.judged();
    q.closed = true;
    q.take(5);
    expect([q.open(), q.offer(fx(5)), q.held, q.unjudged, sent.length]).toEqual([false, false, 0, 2, 1]);
  });
});
