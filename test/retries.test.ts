// Retries are bounded: a target answering every request 429 with `Retry-After: 0` gets MAX_TRIES
// requests per exchange (it got tens of thousands in 6 s), each retry waits at least the floor, the
// run's retries have a budget, and the finding says what was answered and that the harness gave up.
// Counts and messages are asserted, never durations.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Dispatcher } from 'undici';
import { BodySlots, createDispatcher, MAX_TRIES, RequestBudget, RETRY_FLOOR_MS, send } from '../lib/http/send.js';
import { runCli } from './helpers/cli.js';

/** Answers every request 429 with the given Retry-After, and counts them. */
let requests = 0;
let retryAfter = '0';
let server: Server;
let url: string;
const work = mkdtempSync(join(tmpdir(), 'retries-'));
beforeAll(async () => {
  server = createServer((req, res) => {
    requests++;
    req.resume();
    req.on('end', () => { res.writeHead(429, { 'retry-after': retryAfter, 'content-type': 'text/plain' }); res.end('slow down'); });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
beforeEach(() => { requests = 0; retryAfter = '0'; });
afterAll(async () => { await new Promise((r) => server.close(r)); rmSync(work, { recursive: true, force: true }); });

const context = (dispatcher: Dispatcher) => ({ dispatcher, options: { timeoutMs: 10_000, maxBodyBytes: 1 << 20 }, budget: new RequestBudget(), slots: new BodySlots() });
const spec = (i: number) => ({ id: `x${i}`, title: 'x', method: 'GET', path: `/x${i}`, headers: {}, origin: { source: 'probe' as const, vouched: true } });

describe('429 with Retry-After: 0', () => {
  it('the CLI: 20 probes x 3 tries = 60 requests, exit 1, findings say "429 Too Many Requests (Retry-After: 0), gave up after 3 tries"', async () => {
    const dir = join(work, 'cli');
    const r = await runCli(['--base-url', url, '--report-dir', dir, '--quiet', '--reports', 'summary']);
    expect(r.code).toBe(1);
    expect(requests).toBe(20 * 3);
    expect(r.stdout).toContain('login.post: 429 Too Many Requests (Retry-After: 0), gave up after 3 tries, expected 200');
    expect(r.stdout).not.toContain('no complete response');
    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as { exchanges: { attempts?: number; status?: number }[] };
    expect(summary.exchanges.map((e) => [e.status, e.attempts])).toEqual(Array.from({ length: 20 }, () => [429, 3]));
  }, 120_000);

  it('the floor: each retry waits 250 ms however soon Retry-After asks (the waits recorded, not sat through)', async () => {
    const waits: number[] = [];
    const dispatcher = createDispatcher({ timeoutMs: 10_000, maxBodyBytes: 1 << 20 });
    const ex = await send(spec(1), url, { ...context(dispatcher), sleep: async (ms) => { waits.push(ms); } });
    await dispatcher.close();
    expect([requests, waits, ex.attempts, ex.gaveUp]).toEqual([3, [RETRY_FLOOR_MS, RETRY_FLOOR_MS], 3, '429 Too Many Requests (Retry-After: 0), gave up after 3 tries']);
    expect([RETRY_FLOOR_MS, MAX_TRIES]).toEqual([250, 3]);
  });

  it('the run\'s budget: with 2 retries left for the run, 5 exchanges in turn send 5 + 2 requests, the rest saying the retries are spent', async () => {
    const dispatcher = createDispatcher({ timeoutMs: 10_000, maxBodyBytes: 1 << 20 });
    const ctx = { ...context(dispatcher), budget: new RequestBudget(Infinity, Infinity, { min: 2, share: 0 }), sleep: async () => {} };
    const gave: (string | undefined)[] = [];
    for (let i = 0; i < 5; i++) gave.push((await send(spec(i), url, ctx)).gaveUp);
    await dispatcher.close();
    expect(requests).toBe(7);
    expect(gave).toEqual([
      '429 Too Many Requests (Retry-After: 0), gave up after 3 tries',
      ...Array.from({ length: 4 }, () => '429 Too Many Requests (Retry-After: 0), gave up after 1 try (the run\'s retries are spent: at most 2 or 0% of the requests)'),
    ]);
  });

  it('the budget grows with the run: 100 retries, or 10% of its first tries when that is more', async () => {
    const retriesAfter = async (firstTries: number) => {
      const budget = new RequestBudget();
      for (let i = 0; i < firstTries; i++) await budget.take();
      let granted = 0;
      while (budget.takeRetry()) granted++;
      return granted;
    };
    expect([await retriesAfter(17), await retriesAfter(3000)]).toEqual([100, 300]);
  });

  it('a long Retry-After is not waited past the exchange\'s limit: one request, the reason given', async () => {
    retryAfter = '120';
    const dispatcher = createDispatcher({ timeoutMs: 10_000, maxBodyBytes: 1 << 20 });
    const ex = await send(spec(1), url, { ...context(dispatcher), sleep: async () => { throw new Error('must not wait'); } });
    await dispatcher.close();
    expect([requests, ex.gaveUp]).toEqual([1, '429 Too Many Requests (Retry-After: 120), gave up after 1 try (a wait of 120 s would pass the exchange\'s limit of 30 s)']);
  });
});
