// The slow report writers' children (the presentation child loading vitest) start once a run has
// taken its last request or recorded exchange (RunOptions.onLastTaken, called by the session), not as
// the run starts: on two cores their loading took CPU from a long run's judging and its target.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { runConformance } from '../lib/engine/run.js';
import type { ExchangeSpec } from '../lib/http/exchange.js';
import { childEnv, ROOT } from './helpers/cli.js';
import { owned } from './helpers/owned-children.js';
import { useReference } from './helpers/reference.js';
import { DEFAULT_NAMESPACES } from '../lib/contract/namespaces.js';
import { goodExchanges } from './helpers/exchanges.js';

const work = mkdtempSync(join(tmpdir(), 'slow-writers-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const reference = useReference();
const SETTINGS = { namespaces: DEFAULT_NAMESPACES, values: {}, extraHeaders: {}, timeoutMs: 60_000, maxBodyBytes: 10 * 1024 * 1024 };

const login = (i: number): ExchangeSpec => ({
  id: `case-${i}.login`, title: `login ${i}`, method: 'POST', path: '/supportstateuser', headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ userName: `user${i}`, searchValues: `s${i}` }), origin: { source: 'case', case: i, vouched: false },
});

it('calls onLastTaken once, after the last request is taken and before the run ends', async () => {
  const events: string[] = [];
  async function* cases() {
    for (let i = 0; i < 5; i++) { events.push(`take ${i}`); yield login(i); }
  }
  const run = runConformance({
    ...SETTINGS, baseUrl: reference.url, probes: false, cases: cases(), concurrency: 2,
    onLastTaken: () => events.push('last taken'),
  }).then((r) => { events.push('ended'); return r; });
  const result = await run;
  expect(result.counts.exchanges).toBe(5);
  expect(events).toEqual(['take 0', 'take 1', 'take 2', 'take 3', 'take 4', 'last taken', 'ended']);
});

it('calls onLastTaken once after the last recorded exchange is read', async () => {
  const events: string[] = [];
  const exchanges = [...goodExchanges().values()].slice(0, 3);
  async function* recorded() {
    for (const [i, ex] of exchanges.entries()) { events.push(`read ${i}`); yield ex; }
  }
  await runConformance({ ...SETTINGS, baseUrl: 'http://127.0.0.1:1', probes: false, mode: 'traffic', recorded: recorded(), onLastTaken: () => events.push('last taken') })
    .then(() => events.push('ended'));
  expect(events).toEqual(['read 0', 'read 1', 'read 2', 'last taken', 'ended']);
});

/** Every process below `pid`, with its command line (Linux's /proc). */
function descendants(pid: number): string[] {
  const parents = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The parent is the 4th field, after the name in parentheses (which may hold spaces).
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(parent, [...(parents.get(parent) ?? []), Number(entry)]);
    } catch { /* gone */ }
  }
  const out: string[] = [];
  const visit = (p: number) => {
    for (const c of parents.get(p) ?? []) {
      try { out.push(readFileSync(`/proc/${c}/cmdline`, 'utf8').split('\0').join(' ')); } catch { /* gone */ }
      visit(c);
    }
  };
  visit(pid);
  return out;
}

it.runIf(process.platform === 'linux')('starts no presentation child while an accounts run has requests left to take, and presents the run after', async () => {
  // The target holds the first request until the run's processes have been listed.
  let release!: () => void;
  const released = new Promise<void>((r) => { release = r; });
  let first!: () => void;
  const firstCame = new Promise<void>((r) => { first = r; });
  const answer = (res: ServerResponse) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  let seen = 0;
  const target = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    if (seen++ === 0) { first(); void released.then(() => answer(res)); } else answer(res);
  });
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
  try {
    const accounts = join(work, 'accounts.jsonl');
    writeFileSync(accounts, Array.from({ length: 3 }, (_, i) => JSON.stringify({ SupportStateUserLoginRequest: { userName: `user${i}`, searchValues: `s${i}` } })).join('\n'));
    const reportDir = join(work, 'reports');
    const url = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
    const child = owned(spawn(process.execPath, ['bin/run.mjs', 'cli/main', '--base-url', url, '--accounts', accounts, '--concurrency', '1', '--timeout', '60000',
      '--reports', 'summary,allure', '--report-dir', reportDir, '--quiet'], { cwd: ROOT, env: childEnv(), detached: true, stdio: 'ignore' }), true);
    const exited = new Promise<number | null>((r) => child.on('exit', r));
    await firstCame;
    const below = descendants(child.pid!);
    release();
    // Two accounts are still to be taken: the presentation child is not there yet.
    expect(below.filter((c) => c.includes('cli/present'))).toEqual([]);
    expect(await exited).toBe(1); // '{}' is no login answer
    // It was started after all, and presented the run.
    expect(existsSync(join(reportDir, 'allure-results'))).toBe(true);
    expect(readdirSync(join(reportDir, 'allure-results')).some((f) => f.endsWith('-result.json'))).toBe(true);
  } finally {
    await new Promise((r) => target.close(r));
  }
}, 300_000);
