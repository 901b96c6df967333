// A differential run folds each request's comparison, and its exchanges into each side's judge, in
// the order the requests were sent, whatever order their answers come in (lib/engine/differential.ts):
// the examples a report shows (each check's first failures, each path's first differences, the
// exchanges kept for them) are the first in the input, the same on every run of it. The candidate
// sits behind a front that holds its answers until every account's request has come, then gives
// them one at a time, in an order the test chooses: each after the run has read the one before (it
// then sends that account's second request to the legacy, which a front there reports). No timer
// decides any order.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkById } from '../lib/checks/catalogue.js';
import { DEFAULT_NAMESPACES } from '../lib/contract/namespaces.js';
import { accountRequests } from '../lib/engine/accounts.js';
import { MAX_DIFF_EXAMPLES, runDifferential, type DifferentialResult } from '../lib/engine/differential.js';
import { MAX_EXAMPLE_EXCHANGES } from '../lib/engine/tally.js';
import { startReference, type RunningReference } from '../lib/reference/server.js';
import { VALUE_FAULTS } from '../lib/reference/value-faults.js';
import { FAULTS } from '../lib/reference/variants.js';

const ACCOUNTS = 8;
const users = Array.from({ length: ACCOUNTS }, (_, i) => `user${i + 1}`);

/** Serves `handle` on a free port; `close` ends it and its connections. */
async function serve(handle: (req: IncomingMessage, res: ServerResponse, body: Buffer) => void): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handle(req, res, Buffer.concat(chunks)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

const userOf = (body: Buffer) => /"userName":"([^"]+)"/.exec(body.toString())?.[1] ?? '?';

/** Forwards `body` to `target` and hands back its answer whole. */
const forward = (target: string, req: IncomingMessage, body: Buffer) => new Promise<{ status: number; headers: IncomingMessage['headers']; body: Buffer }>((resolve, reject) => {
  const out = request(`${target}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
    const parts: Buffer[] = [];
    answer.on('data', (c: Buffer) => parts.push(c));
    answer.on('end', () => resolve({ status: answer.statusCode!, headers: answer.headers, body: Buffer.concat(parts) }));
  });
  out.on('error', reject);
  out.end(body);
});

/** A front to the legacy: forwards every request; `second(user)` settles once the account's second
 *  request came (the run sends it once it has read the candidate's answer to the account). */
async function legacyFront(target: string) {
  const seen = new Map<string, number>();
  const waiting = new Map<string, () => void>();
  const front = await serve((req, res, body) => {
    const user = userOf(body);
    const n = (seen.get(user) ?? 0) + 1;
    seen.set(user, n);
    if (n === 2) waiting.get(user)?.();
    void forward(target, req, body).then((a) => { res.writeHead(a.status, a.headers); res.end(a.body); }, () => res.destroy());
  });
  const second = (user: string) => new Promise<void>((resolve) => { if ((seen.get(user) ?? 0) >= 2) resolve(); else waiting.set(user, resolve); });
  return { ...front, second };
}

/** A front to the candidate: holds every answer until all the accounts' requests came, then gives
 *  them one at a time in `order`, each once `read(user)` says the run read the one before. */
async function orderedFront(target: string, order: readonly string[], read: (user: string) => Promise<void>) {
  const held = new Map<string, () => void>();
  const answered: string[] = [];
  const front = await serve((req, res, body) => {
    const user = userOf(body);
    void forward(target, req, body).then((a) => {
      held.set(user, () => { answered.push(user); res.writeHead(a.status, a.headers); res.end(a.body); });
      if (held.size < order.length) return;
      void (async () => {
        for (const u of order) {
          held.get(u)!();
          await read(u);
        }
      })();
    }, () => res.destroy());
  });
  return { ...front, answered };
}

/** A front to the candidate: forwards every request at once, but holds the first account's answer
 *  until the other `others` accounts' requests came, or `fallbackMs` passed (`released` says which:
 *  the fallback only keeps a broken run from hanging the test). */
async function holdingFirst(target: string, others: number, fallbackMs: number) {
  let seen = 0;
  let release: (() => void) | undefined;
  const state = { released: '' };
  const front = await serve((req, res, body) => {
    const first = userOf(body) === users[0];
    if (!first && ++seen >= others && release) { state.released ||= `${seen} others came`; release(); release = undefined; }
    void forward(target, req, body).then((a) => {
      const send = () => { res.writeHead(a.status, a.headers); res.end(a.body); };
      if (!first || seen >= others) { send(); return; }
      const timer = setTimeout(() => { state.released ||= `after ${fallbackMs} ms, ${seen} others came`; release = undefined; send(); }, fallbackMs);
      release = () => { clearTimeout(timer); send(); };
    }, () => res.destroy());
  });
  return Object.assign(state, front);
}

let legacy: RunningReference;
let candidate: RunningReference;
let file: string;
beforeAll(async () => {
  legacy = await startReference({});
  // Every account's record has a dashed guid (JSON-GUID fails) and its createdDate an hour later (a difference).
  candidate = await startReference({ variants: [...FAULTS.filter((f) => f.name === 'json-guid-dashed-at-depth'), ...VALUE_FAULTS.filter((f) => f.name === 'datetime-shifted-hour')], faultRate: 1 });
  file = join(mkdtempSync(join(tmpdir(), 'differential-order-')), 'accounts.jsonl');
  writeFileSync(file, users.map((u) => `${JSON.stringify({ SupportStateUserLoginRequest: { userName: u, searchValues: 's' } })}\n`).join(''));
});
afterAll(async () => { await legacy?.close(); await candidate?.close(); });

/** The differential run of the accounts with the candidate's answers given in `order`. */
async function runAnswering(order: readonly string[]): Promise<{ result: DifferentialResult; answered: string[] }> {
  const l = await legacyFront(legacy.url);
  const c = await orderedFront(candidate.url, order, l.second);
  try {
    const result = await runDifferential({
      baseUrl: c.url, legacyUrl: l.url, namespaces: DEFAULT_NAMESPACES, values: {}, extraHeaders: {}, timeoutMs: 60_000, maxBodyBytes: 10 * 1024 * 1024,
      probes: false, cases: accountRequests(file, {}), checks: [checkById.get('JSON-GUID')!], concurrency: ACCOUNTS,
    });
    return { result, answered: c.answered };
  } finally {
    await Promise.all([l.close(), c.close()]);
  }
}

/** What the reports are made of, without times and the fronts' ports. */
const reported = (r: DifferentialResult) => JSON.parse(JSON.stringify({
  operations: r.operations.map((o) => ({ ...o, paths: [...o.paths.values()], noise: [...o.noise.values()] })),
  compared: r.compared, differences: r.differences, inconclusive: r.inconclusive,
  candidate: { results: r.candidate.results.map((x) => ({ ...x, check: x.check.id })), exchanges: r.candidate.exchanges.map((x) => x.id), counts: r.candidate.counts, verdict: r.candidate.verdict },
  legacy: { results: r.legacy.results.map((x) => ({ ...x, check: x.check.id })), exchanges: r.legacy.exchanges.map((x) => x.id), counts: r.legacy.counts, verdict: r.legacy.verdict },
})) as unknown;

describe('differential examples in request order', () => {
  it('the examples and kept exchanges are the first accounts of the file, though the candidate answered them last, and are those of a run answered in order', async () => {
    const reversed = await runAnswering([...users].reverse());
    const inOrder = await runAnswering(users);
    // The answers came as each front was told (what the run had to put back in order).
    expect(reversed.answered).toEqual([...users].reverse());
    expect(inOrder.answered).toEqual(users);

    const first = (n: number) => Array.from({ length: n }, (_, i) => `case-${i + 1}.login`);
    const { result } = reversed;
    const guid = result.candidate.results.find((r) => r.check.id === 'JSON-GUID')!;
    expect(guid.failed).toBe(ACCOUNTS);
    expect([...new Set(guid.examples.map((e) => e.exchange))]).toEqual(first(MAX_EXAMPLE_EXCHANGES));
    const created = result.operations.find((o) => o.operation === 'SupportStateUserLoginRequest')!.paths.get('createdDate')!;
    expect(created.differing).toBe(ACCOUNTS);
    expect(created.examples.map((e) => e.request)).toEqual(first(MAX_DIFF_EXAMPLES));
    expect(created.shownBy).toEqual({ legacy: 'case-1.login.legacy', candidate: 'case-1.login' });
    expect(result.candidate.exchanges.map((e) => e.id)).toEqual([...first(MAX_EXAMPLE_EXCHANGES), 'case-1.login.legacy']);

    expect(reported(result)).toEqual(reported(inOrder.result));
  });

  // A comparison that found nothing waits to be folded as its judgements and comparison only, and
  // its slot goes to the next request: one late answer holds back no later one.
  it('a late candidate answer holds back no later request while the comparisons find nothing: every other account is sent before it comes, and all are folded in order', async () => {
    const many = 16;
    const file16 = join(mkdtempSync(join(tmpdir(), 'differential-late-')), 'accounts.jsonl');
    writeFileSync(file16, Array.from({ length: many }, (_, i) => `${JSON.stringify({ SupportStateUserLoginRequest: { userName: `user${i + 1}`, searchValues: 's' } })}\n`).join(''));
    const held = await holdingFirst(legacy.url, many - 1, 60_000);
    try {
      const folded: number[] = [];
      const result = await runDifferential({
        baseUrl: held.url, legacyUrl: legacy.url, namespaces: DEFAULT_NAMESPACES, values: {}, extraHeaders: {}, timeoutMs: 120_000, maxBodyBytes: 10 * 1024 * 1024,
        probes: false, cases: accountRequests(file16, {}), checks: [checkById.get('JSON-GUID')!], concurrency: 4,
        onProgress: (p) => folded.push(p.exchanges),
      });
      expect(held.released).toBe(`${many - 1} others came`);
      expect([result.compared, result.differences, result.candidate.counts.exchanges, result.legacy.counts.exchanges]).toEqual([many, 0, many, many]);
      expect(folded).toEqual(Array.from({ length: many }, (_, i) => i + 1));
    } finally {
      await held.close();
    }
  });
});
