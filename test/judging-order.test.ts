// Exchanges are folded in the order they were sent, whatever order their answers come in
// (lib/engine/run.ts): the examples a report shows (each check's first failures) are the first in
// the input, the same on every run of it. A forwarder holds the answers to all the accounts until
// every request has come, then gives them in reverse: the last account's answer first.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkById } from '../lib/checks/catalogue.js';
import { DEFAULT_NAMESPACES } from '../lib/contract/namespaces.js';
import { accountRequests } from '../lib/engine/accounts.js';
import { runConformance } from '../lib/engine/run.js';
import { MAX_EXAMPLE_EXCHANGES } from '../lib/engine/tally.js';
import { startReference, type RunningReference } from '../lib/reference/server.js';
import { FAULTS } from '../lib/reference/variants.js';

const ACCOUNTS = 8;
let reference: RunningReference;
let forwarder: { url: string; answered: string[]; close: () => Promise<void> };
let clean: RunningReference;

/** Forwards each request to `target`; answers none until `count` have come, then all, last first. */
async function reversing(target: string, count: number): Promise<typeof forwarder> {
  const held: { user: string; res: ServerResponse; status: number; headers: IncomingMessage['headers']; body: Buffer }[] = [];
  const answered: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const user = /"userName":"([^"]+)"/.exec(body.toString())?.[1] ?? '?';
      const out = request(`${target}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
        const parts: Buffer[] = [];
        answer.on('data', (c: Buffer) => parts.push(c));
        answer.on('end', () => {
          held.push({ user, res, status: answer.statusCode!, headers: answer.headers, body: Buffer.concat(parts) });
          if (held.length < count) return;
          // Last account first, each after the one before it has been written whole.
          const number = (user: string) => Number(user.replace(/\D/g, ''));
          held.sort((a, b) => number(a.user) - number(b.user));
          const next = () => {
            const h = held.pop();
            if (!h) return;
            answered.push(h.user);
            h.res.writeHead(h.status, h.headers);
            h.res.end(h.body, () => setTimeout(next, 20));
          };
          next();
        });
      });
      out.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, answered, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

beforeAll(async () => {
  // Every account's record carries a dashed guid: each exchange fails JSON-GUID.
  reference = await startReference({ variants: FAULTS.filter((f) => f.name === 'json-guid-dashed-at-depth'), faultRate: 1 });
  forwarder = await reversing(reference.url, ACCOUNTS);
});
afterAll(async () => { await forwarder.close(); await reference.close(); await clean?.close(); });

/** Forwards each request to `target` at once, but the first account's answer only once `others` more
 *  requests have come, or after `fallbackMs` (`released` says which). */
async function holdingFirst(target: string, others: number, fallbackMs: number) {
  let seen = 0;
  let release: (() => void) | undefined;
  const state = { url: '', released: '', server: createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const first = /"userName":"user1"/.test(body.toString());
      if (!first && ++seen >= others && release) { state.released ||= `${seen} others came`; release(); release = undefined; }
      const out = request(`${target}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
        const parts: Buffer[] = [];
        answer.on('data', (c: Buffer) => parts.push(c));
        answer.on('end', () => {
          const send = () => { res.writeHead(answer.statusCode!, answer.headers); res.end(Buffer.concat(parts)); };
          if (!first || seen >= others) { send(); return; }
          const timer = setTimeout(() => { state.released ||= `after ${fallbackMs} ms, ${seen} others came`; release = undefined; send(); }, fallbackMs);
          release = () => { clearTimeout(timer); send(); };
        });
      });
      out.end(body);
    });
  }) };
  await new Promise<void>((resolve) => state.server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(state.server.address() as AddressInfo).port}`;
  return state;
}

describe('judging order', () => {
  it('the examples are the first accounts of the file, though their answers came last', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'judging-order-')), 'accounts.jsonl');
    writeFileSync(file, Array.from({ length: ACCOUNTS }, (_, i) => `${JSON.stringify({ SupportStateUserLoginRequest: { userName: `user${i + 1}`, searchValues: 's' } })}\n`).join(''));
    const result = await runConformance({
      baseUrl: forwarder.url, namespaces: DEFAULT_NAMESPACES, values: {}, extraHeaders: {}, timeoutMs: 60_000, maxBodyBytes: 10 * 1024 * 1024,
      probes: false, cases: accountRequests(file, {}), checks: [checkById.get('JSON-GUID')!], concurrency: ACCOUNTS,
    });
    // The answers came last account first (what the run had to put back in order).
    expect(forwarder.answered).toEqual(Array.from({ length: ACCOUNTS }, (_, i) => `user${ACCOUNTS - i}`));
    const guid = result.results.find((r) => r.check.id === 'JSON-GUID')!;
    expect(guid.failed).toBe(ACCOUNTS);
    expect([...new Set(guid.examples.map((e) => e.exchange))]).toEqual(Array.from({ length: MAX_EXAMPLE_EXCHANGES }, (_, i) => `case-${i + 1}.login`));
    expect(result.exchanges.map((e) => e.id)).toEqual(Array.from({ length: MAX_EXAMPLE_EXCHANGES }, (_, i) => `case-${i + 1}.login`));
  });

  // Judged as each answer comes, folded in the order sent: an account passing every check waits to be
  // folded as its id and judgement only, and its slot goes to the next request.
  it('a late answer holds back no later request while the exchanges pass: every other account is sent before it comes, and all are folded', async () => {
    clean = await startReference({});
    const accounts = 16;
    const held = await holdingFirst(clean.url, accounts - 1, 20_000);
    try {
      const file = join(mkdtempSync(join(tmpdir(), 'judging-late-')), 'accounts.jsonl');
      writeFileSync(file, Array.from({ length: accounts }, (_, i) => `${JSON.stringify({ SupportStateUserLoginRequest: { userName: `user${i + 1}`, searchValues: 's' } })}\n`).join(''));
      const folded: number[] = [];
      const result = await runConformance({
        baseUrl: held.url, namespaces: DEFAULT_NAMESPACES, values: {}, extraHeaders: {}, timeoutMs: 60_000, maxBodyBytes: 10 * 1024 * 1024,
        probes: false, cases: accountRequests(file, {}), checks: [checkById.get('JSON-GUID')!], concurrency: 4,
        onProgress: (p) => folded.push(p.exchanges),
      });
      expect(held.released).toBe(`${accounts - 1} others came`);
      const guid = result.results.find((r) => r.check.id === 'JSON-GUID')!;
      expect([guid.status, guid.judged, result.counts.exchanges]).toEqual(['pass', accounts, accounts]);
      expect(folded).toEqual(Array.from({ length: accounts }, (_, i) => i + 1));
    } finally {
      await new Promise<void>((resolve) => held.server.close(() => resolve()));
    }
  });
});
