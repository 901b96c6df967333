// Judging on worker threads (--jobs N, issue 24): a run judged by two workers writes the report the
// main thread alone (--jobs 0) writes for the same input (results, counts, examples in order, groups,
// kept exchanges, a shrunk failure), a secret one worker learned is masked in an exchange another
// worker judged, workers started after the run's first exchanges (the default) change nothing but
// where the rest are judged, and a worker that dies ends the run in one line, never a hang.
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checksFor } from '../lib/checks/catalogue.js';
import { AHEAD, JudgePool, posted, unposted } from '../lib/engine/judge-pool.js';
import { runConformance } from '../lib/engine/run.js';
import { recordedResponse, type Exchange } from '../lib/http/exchange.js';
import { FAULTS } from '../lib/reference/variants.js';
import { startReference, type RunningReference } from '../lib/reference/server.js';
import { DEFAULT_NAMESPACES } from '../lib/contract/namespaces.js';
import { Redactor } from '../lib/reporting/redact.js';
import { LEAN, runCli } from './helpers/cli.js';

const work = mkdtempSync(join(tmpdir(), 'judge-pool-'));
const reports = () => mkdtempSync(join(work, 'r-'));
const PATIENT = ['--timeout', '60000', '--quiet', '--reports', 'summary'];
/** A secret only the first entry's answer holds (a credential field); the second holds it in free text. */
const SECRET = 'hx_POOLCANARY0a9f3e1c7b5d2468ace1';

/** summary.json and exchanges.json without what differs between two runs of the same input: times,
 *  durations, HTTP dates, the run's identity and the --jobs option itself. */
function reportOf(dir: string): unknown {
  const [summary, exchanges] = ['summary.json', 'exchanges.json'].map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')
    .replace(/[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT/g, 'DATE')
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z/g, 'TIME')
    .replace(/"(durationMs|startupMs|sendingMs|checkingMs|peakRss|elapsedMs)":\s*[\d.]+/g, '"$1":0')) as Record<string, unknown>);
  for (const k of ['run', 'timings', 'peakRss', 'durationMs', 'node', 'harness']) delete summary![k];
  const configuration = summary!.configuration as { options: Record<string, unknown>; reportDir?: string };
  for (const k of ['jobs', 'report-dir']) delete configuration.options[k];
  delete configuration.reportDir;
  return { summary, exchanges };
}

const checkOf = (dir: string, id: string) => (JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as { checks: { id: string; evidence?: { exchange: string }[]; counts: Record<string, number> }[] }).checks.find((c) => c.id === id)!;

/** Runs the CLI with --jobs 0 (the main thread judges) and --jobs 2 on the same arguments; both
 *  report directories. */
async function bothWays(args: readonly string[]): Promise<[string, string]> {
  const [one, two] = [reports(), reports()];
  const [a, b] = await Promise.all([runCli([...LEAN, ...args, '--jobs', '0', '--report-dir', one]), runCli([...LEAN, ...args, '--jobs', '2', '--report-dir', two])]);
  expect([a.code, a.stderr]).toEqual([b.code, b.stderr]);
  expect(a.code, a.stderr).toBeLessThan(2);
  return [one, two];
}

let plain: RunningReference;
let faulty: RunningReference;
let apostrophe: RunningReference;
let har: string;
/** The HAR's answers, in entry order. */
const answers: string[] = [];
/** Entries of the HAR whose answer has a three-digit createdDate (JSON-DATETIME fails on them). */
const BROKEN = new Set([1, 6, 8, 10, 12, 14, 15, 17, 19, 23, 24, 31]);
beforeAll(async () => {
  [plain, faulty, apostrophe] = await Promise.all([
    startReference(),
    startReference({ variants: FAULTS.filter((f) => f.name === 'json-guid-dashed-at-depth'), faultRate: 0.2 }),
    startReference({ variants: [FAULTS.find((f) => f.name === 'apostrophe-500')!] }),
  ]);
  // A HAR of 40 login answers, each with its own token; some with a fault, unevenly over the two
  // workers (entry k goes to worker k % 2), so examples taken per worker would not be the first ones.
  const body = '{"userName":"jdoe.support"}';
  const r = await fetch(`${plain.url}/supportstateuser`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  const answer = await r.text();
  const entries = Array.from({ length: 40 }, (_, i) => {
    let text = answer.replace(/"hxToken":"[^"]*"/, `"hxToken":"${i === 0 ? SECRET : `hx_pool${String(i).padStart(4, '0')}9f3e1c7b5d2468ace`}"`);
    if (BROKEN.has(i)) text = text.replace(/"createdDate":"[^"]*"/, `"createdDate":"2019-03-01T08:15:${String(i).padStart(2, '0')}.500"`);
    // Entry 1 (worker 2 of 2) holds entry 0's token where nothing names it as secret.
    if (i === 1) text = text.replace('"company":""', `"company":"see ${SECRET} here"`);
    // Bodies past 64 KiB are moved to the worker, not copied: what the run keeps of them comes back from it.
    text = `${text.slice(0, -1)}${' '.repeat(70 * 1024)}}`;
    answers.push(text);
    return {
      startedDateTime: '2026-01-01T00:00:00.000Z', time: 3, cache: {}, timings: { send: 0, wait: 3, receive: 0 },
      request: { method: 'POST', url: `http://svc.test/supportstateuser`, httpVersion: 'HTTP/1.1', headers: [{ name: 'content-type', value: 'application/json' }], queryString: [], cookies: [], headersSize: -1, bodySize: body.length, postData: { mimeType: 'application/json', text: body } },
      response: { status: 200, statusText: 'OK', httpVersion: 'HTTP/1.1', headers: [{ name: 'content-type', value: 'application/json; charset=utf-8' }], cookies: [], content: { size: text.length, mimeType: 'application/json; charset=utf-8', text }, redirectURL: '', headersSize: -1, bodySize: text.length },
    };
  });
  expect(answer).toMatch(/"createdDate":"[^"]*"/);
  har = join(work, 'faults.har');
  writeFileSync(har, JSON.stringify({ log: { version: '1.2', creator: { name: 'test', version: '1' }, entries } }));
}, 60_000);
afterAll(async () => { await Promise.all([plain.close(), faulty.close(), apostrophe.close()]); });

describe('--jobs 2 writes the report --jobs 0 writes', () => {
  it('a HAR with faults: the same results, counts, groups, and examples from the first failing entries in file order', async () => {
    const [one, two] = await bothWays(['--har', har, ...PATIENT]);
    expect(reportOf(two)).toEqual(reportOf(one));
    // What the comparison stands on: the first five failing entries, in order, whichever worker judged them.
    const examples = checkOf(two, 'JSON-DATETIME').evidence!.map((e) => e.exchange);
    expect([...new Set(examples)]).toEqual([...BROKEN].slice(0, 5).map((i) => `har.${i + 1}`));
    expect(checkOf(two, 'JSON-DATETIME').counts).toMatchObject({ judged: 40, failed: BROKEN.size });
  }, 120_000);

  it('a secret learned by one worker is masked in an exchange kept by the other', async () => {
    const dir = reports();
    const r = await runCli(['--har', har, ...PATIENT, '--jobs', '2', '--report-dir', dir, '--reports', 'summary,traceability,junit']);
    expect(r.code, r.stderr).toBe(1);
    // har.2 (entry 1, the second worker's) is kept as an example: its free text held the first worker's token.
    const kept = JSON.parse(readFileSync(join(dir, 'exchanges.json'), 'utf8')) as { id: string }[];
    expect(JSON.stringify(kept.find((e) => e.id === 'har.2'))).toMatch(/see «secret: \d+ chars» here/);
    for (const f of readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile())) {
      expect(readFileSync(join(f.parentPath, f.name), 'utf8'), f.name).not.toContain(SECRET.slice(3));
    }
  }, 120_000);

  it('--accounts against a reference with a fault hitting some accounts: the same report', async () => {
    const file = join(work, 'accounts.jsonl');
    writeFileSync(file, Array.from({ length: 60 }, (_, i) => JSON.stringify({ SupportStateUserLoginRequest: { userName: `user${i}`, searchValues: `s${i}` } })).join('\n'));
    // One exchange in flight: the order the exchanges complete in (which the examples follow) is the order sent.
    const [one, two] = await bothWays(['--base-url', faulty.url, '--accounts', file, '--concurrency', '1', ...PATIENT]);
    expect(reportOf(two)).toEqual(reportOf(one));
    const failed = (JSON.parse(readFileSync(join(two, 'summary.json'), 'utf8')) as { checks: { status: string; counts: { failed: number } }[] }).checks.filter((c) => c.status === 'failed');
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.some((c) => c.counts.failed > 5)).toBe(true);
  }, 180_000);

  it('--generate with a seed: the same report, the same shrunk failure', async () => {
    const [one, two] = await bothWays(['--base-url', apostrophe.url, '--generate', '30', '--seed', '9', '--concurrency', '1', ...PATIENT]);
    expect(reportOf(two)).toEqual(reportOf(one));
    const shrunk = (JSON.parse(readFileSync(join(two, 'summary.json'), 'utf8')) as { checks: { id: string; shrunk?: { findings: unknown[] } }[] }).checks.find((c) => c.id === 'ROBUST-NO-5XX')!.shrunk;
    expect(shrunk?.findings).toEqual([expect.objectContaining({ message: 'status 500 (SqlException): a server error' })]);
  }, 180_000);
});

describe('workers started after the run\'s first exchanges (the default: JUDGED_BEFORE_WORKERS)', () => {
  it('judges the first 7 of 40 on the run\'s thread, 16 (AHEAD) on one worker, still starting, and the 17 that find it behind on the run\'s thread: the result the run\'s thread alone gives', async () => {
    const exchanges: Exchange[] = answers.map((text, i) => ({
      id: `har.${i + 1}`, title: 'login', origin: { source: 'har', vouched: false }, startedAt: '', durationMs: 0,
      request: { method: 'POST', url: 'http://svc.test/supportstateuser', headers: { 'content-type': 'application/json' }, body: '{"userName":"jdoe.support"}' },
      response: recordedResponse(200, { 'content-type': 'application/json; charset=utf-8' }, Buffer.from(text)),
    }));
    const judged = async (jobs: number) => {
      // The run's own learner (observe) sees only what this thread judged; a worker learns on its own.
      // The recording is an array, read without a macrotask: the worker, still loading its modules
      // (hundreds of milliseconds) while this thread judges the 17, has judged none of its AHEAD, so
      // the run's thread judges the rest.
      let here = 0;
      const result = await runConformance({
        baseUrl: 'http://svc.test', recorded: exchanges, mode: 'traffic', probes: false, namespaces: DEFAULT_NAMESPACES, values: {}, extraHeaders: {},
        timeoutMs: 1000, maxBodyBytes: 1 << 20, observe: () => { here++; }, jobs, judgedBeforeWorkers: 7,
        judgeWorker: { program: 'cli/judge-worker', data: () => ({ showPersonalData: false, secrets: [], secretHeaders: [], fingerprints: new Redactor({ showPersonalData: false, secrets: [] }).shareFingerprints() }) },
      });
      return { here, results: result.results.map((r) => ({ ...r, check: r.check.id })), counts: result.counts, kept: result.exchanges.map((e) => e.id) };
    };
    const [alone, late] = [await judged(0), await judged(1)];
    expect([alone.here, late.here]).toEqual([40, 7 + 40 - 7 - AHEAD]);
    expect(late.results).toEqual(alone.results);
    expect(late.counts).toEqual(alone.counts);
    expect(late.kept).toEqual(alone.kept);
    expect(alone.results.find((r) => r.check === 'JSON-DATETIME')).toMatchObject({ status: 'fail', failed: BROKEN.size });
  }, 120_000);
});

describe('judgements as a worker posts them', () => {
  it('come back in their order, each with every look in check order, passes as empty lists, skips and findings as they were', () => {
    for (let seed = 1; seed <= 200; seed++) {
      let x = seed;
      const next = () => (x = (x * 48271) % 2147483647);
      // Batches of 1 to 8 judgements; some with no look at all, some with passes only.
      const judgements = Array.from({ length: 1 + (next() % 8) }, (_, j) => {
        const looks = Array.from({ length: next() % 5 ? 70 : 0 }, (_, i) => i).filter(() => next() % 3 > 0).map((i) => {
          const r = j % 3 === 2 ? 2 : next() % 4;
          return [i, r === 0 ? { skip: `no answer ${i}` } : r === 1 ? [{ message: `wrong ${i}`, path: `$.f${i}` }] : []] as const;
        });
        return (seed + j) % 2 ? { label: `SupportStateUserLoginRequest POST route -> JSON ${j}`, looks } : { where: `GET /elsewhere/${j}`, looks };
      });
      expect(unposted(structuredClone(posted(judgements)))).toEqual(judgements);
    }
  });
});

describe('a judging worker that dies', () => {
  it('fails the run with its cause in one line, never a hang', async () => {
    // A worker given no learner data dies as it starts (it reads the shared fingerprints from it).
    const checks = checksFor(new Set(['har']));
    const pool = new JudgePool(2, checks, { namespaces: DEFAULT_NAMESPACES }, { program: 'cli/judge-worker', data: () => null }, () => []);
    const ex: Exchange = {
      id: 'har.1', title: 'x', origin: { source: 'har', vouched: false }, startedAt: '', durationMs: 0,
      request: { method: 'POST', url: 'http://svc.test/supportstateuser', headers: {}, body: '{}' },
      response: recordedResponse(200, { 'content-type': 'application/json' }, Buffer.from('{}')),
    };
    try {
      // The worker's own cause, in one line.
      await expect(pool.judge(ex)).rejects.toThrow(/^judging worker [12] of 2 failed: Cannot read properties of null \(reading '\w+'\)$/);
      await expect(pool.judge(ex)).rejects.toThrow(/^judging worker/);
    } finally {
      await pool.close();
    }
  }, 60_000);
});

describe('a fold that throws on the run\'s thread', () => {
  it('rejects that exchange\'s judgement and every later one with its cause, never leaving one unsettled', async () => {
    // Unsettled, nothing kept the process alive once the workers stopped: the run exited 0 with no
    // verdict and no reports.
    const learner = { showPersonalData: false, secrets: [], secretHeaders: [], fingerprints: new Redactor({ showPersonalData: false, secrets: [] }).shareFingerprints() };
    const pool = new JudgePool(1, checksFor(new Set(['har'])), { namespaces: DEFAULT_NAMESPACES }, { program: 'cli/judge-worker', data: () => learner },
      (ex) => { if (ex.id === 'har.2') throw new Error('fold failed on har.2'); return []; });
    const exchange = (i: number): Exchange => ({
      id: `har.${i}`, title: 'x', origin: { source: 'har', vouched: false }, startedAt: '', durationMs: 0,
      request: { method: 'POST', url: 'http://svc.test/supportstateuser', headers: {}, body: '{}' },
      response: recordedResponse(200, { 'content-type': 'application/json' }, Buffer.from('{}')),
    });
    try {
      const settled = await Promise.allSettled([1, 2, 3].map((i) => pool.judge(exchange(i))));
      expect(settled.map((s) => (s.status === 'fulfilled' ? 'folded' : (s.reason as Error).message))).toEqual(['folded', 'fold failed on har.2', 'fold failed on har.2']);
    } finally {
      await pool.close();
    }
  }, 60_000);
});
