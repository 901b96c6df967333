// The long-running modes (the proxy, the judging reference) write reports while traffic comes. Those
// say the run is in progress (INCOMPLETE, or NOT CONFORMANT once a MUST check failed: never a verdict
// its end could still change), in every output; a second stop (at once) keeps the last of them that
// were put in place whole, never a mix of two writes, and exits with the code they state.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPORT_ROUTE, startJudgingReference } from '../lib/cli/judging-reference.js';
import { restateWithProblem, stoppedAtOnce, useLiveGate, verifyManifest } from '../lib/cli/write-reports.js';
import { childAhead } from '../lib/child-ahead.js';
import { startReference, type RunningReference } from '../lib/reference/server.js';
import { sendRaw } from './helpers/client-requests.js';
import { runCli, servingProgram } from './helpers/cli.js';
import { heldFront, holding } from './helpers/held-front.js';
import { until } from './helpers/wait.js';
import { verdictsIn } from './helpers/verdict-words.js';

const CONFORMANT = { method: 'POST', path: '/user/confirmemail', headers: { 'content-type': 'application/json' }, body: '{"recoveryToken":"rt-123","verifyEmail":"jane@example.org","ownerId":42,"isForMM":false}' };
/** ownerId a string: REQ-JSON-TYPES, a MUST check, fails. */
const WRONG_TYPE = { ...CONFORMANT, body: '{"recoveryToken":"rt-123","ownerId":"7"}' };
type Summary = { verdict: string; verdictWords: string; exitCode: number; inProgress?: boolean };
const summaryIn = (dir: string) => JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as Summary;
/** The verdict each output in `dir` states (no console here), and summary.json's exit code. */
const statedIn = (dir: string, html = false) => {
  const { console: _c, ...stated } = verdictsIn(dir, '', html);
  return stated;
};

describe('reports written while a live run goes on', () => {
  it('say it is in progress in every output: INCOMPLETE, IN PROGRESS, 1 EXCHANGE JUDGED SO FAR, exit code 2', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'live-progress-'));
    const judging = await startJudgingReference({ reportDir: dir, print: () => {} });
    try {
      expect((await sendRaw(judging.url, CONFORMANT)).status).toBe(200);
      await judging.report();
      const words = 'INCOMPLETE, IN PROGRESS, 1 EXCHANGE JUDGED SO FAR';
      expect(statedIn(dir, true)).toEqual({ summary: words, junit: words, traceability: words, html: words, exitCode: 2 });
      expect(summaryIn(dir)).toMatchObject({ verdict: 'incomplete', inProgress: true });
      expect(readFileSync(join(dir, 'junit.xml'), 'utf8')).toContain('<error message="INCOMPLETE, IN PROGRESS, 1 EXCHANGE JUDGED SO FAR (exit 2)"');
    } finally {
      await judging.close();
    }
  }, 120_000);

  it('a MUST check failed while it goes on: NOT CONFORMANT, IN PROGRESS (exit code 1), and so it stays; the last reports drop "in progress"', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'live-failed-'));
    const judging = await startJudgingReference({ reportDir: dir, print: () => {}, reports: new Set(['summary', 'junit', 'traceability']) });
    try {
      expect((await sendRaw(judging.url, WRONG_TYPE)).status).toBe(400);
      await judging.report();
      expect(statedIn(dir)).toEqual({ summary: 'NOT CONFORMANT, IN PROGRESS, 1 EXCHANGE JUDGED SO FAR', junit: 'NOT CONFORMANT, IN PROGRESS, 1 EXCHANGE JUDGED SO FAR', traceability: 'NOT CONFORMANT, IN PROGRESS, 1 EXCHANGE JUDGED SO FAR', exitCode: 1 });
      expect((await sendRaw(judging.url, CONFORMANT)).status).toBe(200);
      const onDemand = await fetch(`${judging.url}${REPORT_ROUTE}`);
      expect(await onDemand.json()).toMatchObject({ verdictWords: 'NOT CONFORMANT, IN PROGRESS, 2 EXCHANGES JUDGED SO FAR', exitCode: 1 });
      const last = await judging.stop();
      expect(last.report.inProgress).toBeUndefined();
      expect(statedIn(dir)).toEqual({ summary: 'NOT CONFORMANT', junit: 'NOT CONFORMANT', traceability: 'NOT CONFORMANT', exitCode: 1 });
    } finally {
      await judging.close();
    }
  });
});

const IN_PROGRESS = 'INCOMPLETE, IN PROGRESS, 1 EXCHANGE JUDGED SO FAR';
/** Stops at once now: the set put in place before (`before`, the directory's listing then) stays
 *  whole, and the code is the one it states. */
async function expectStopKeeps(dir: string, before: readonly string[]) {
  expect(stoppedAtOnce(dir, 'test')()).toEqual({ said: `kept the last reports written whole (${IN_PROGRESS}), exit 2`, code: 2 });
  expect(readdirSync(dir).sort()).toEqual(before);
  expect(await verifyManifest(dir)).toBeUndefined();
  expect(statedIn(dir)).toEqual({ summary: IN_PROGRESS, junit: IN_PROGRESS, traceability: IN_PROGRESS, exitCode: 2 });
}

describe('a second stop (at once) of a live run', () => {
  it('while a write is under way: the set put in place before stays whole (the manifest verifies it), the write\'s half is removed, and the code is the one it states', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'live-mix-'));
    // A gate of this test's own (the runner's process goes on to other files): no set put in place yet.
    useLiveGate(new SharedArrayBuffer(8));
    // The Allure results make a write last seconds: the stop comes while it is half done.
    const judging = await startJudgingReference({ reportDir: dir, print: () => {}, reports: new Set(['summary', 'junit', 'traceability', 'allure']) });
    try {
      expect((await sendRaw(judging.url, CONFORMANT)).status).toBe(200);
      await judging.report();
      const before = readdirSync(dir).sort();
      expect((await sendRaw(judging.url, WRONG_TYPE)).status).toBe(400);
      const next = judging.report();
      const staging = join(dir, '.conformance-writing');
      await until(() => existsSync(join(staging, 'summary.json')), 'the next write to begin');
      await expectStopKeeps(dir, before);
      // Stopped, the write under way puts nothing in place.
      await next.catch(() => undefined);
      expect(readdirSync(dir).sort()).toEqual(before);
      expect(summaryIn(dir).verdictWords).toBe(IN_PROGRESS);
    } finally {
      await judging.close();
      useLiveGate(new SharedArrayBuffer(8)); // stopped no more
    }
  }, 120_000);

  it('while the reports of a lost judge are written again with the problem: the set put in place before stays whole, never a mix, and the code is the one it states', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'live-restate-'));
    useLiveGate(new SharedArrayBuffer(8));
    const since = Date.now();
    const chosen = new Set(['summary', 'junit', 'traceability', 'allure']);
    const judging = await startJudgingReference({ reportDir: dir, print: () => {}, reports: chosen });
    try {
      expect((await sendRaw(judging.url, CONFORMANT)).status).toBe(200);
      await judging.report();
      const before = readdirSync(dir).sort();
      // As the proxy does when its judge is lost; the Allure results make it last seconds.
      const again = restateWithProblem(dir, since, chosen, 'the judge stopped (exit 1)');
      const restated = (d: string) => { try { return summaryIn(d).verdictWords.endsWith('1 PROBLEM'); } catch { return false; } };
      await until(() => restated(dir) || restated(join(dir, '.conformance-writing')), 'the rewrite to begin');
      await expectStopKeeps(dir, before);
      await again.catch(() => undefined);
      expect(readdirSync(dir).sort()).toEqual(before);
    } finally {
      await judging.close();
      useLiveGate(new SharedArrayBuffer(8)); // stopped no more
    }
  }, 120_000);

  it('ends a child still writing into the set under way (as the presentation does) and removes that set: nothing hidden is left after it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'live-child-'));
    useLiveGate(new SharedArrayBuffer(8));
    const results = join(dir, '.conformance-writing', 'allure-results');
    // Given its line, it writes a result every few milliseconds, making the directories it needs, until it is ended.
    const child = childAhead(['-e', `const fs = require('node:fs'); process.stdin.resume(); process.stdin.on('end', () => setInterval(() => { fs.mkdirSync(${JSON.stringify(results)}, { recursive: true }); fs.writeFileSync(${JSON.stringify(results)} + '/r-' + Date.now() + '.json', '{}'); }, 2));`], false);
    try {
      const ran = child.run('present', 10_000);
      await until(() => existsSync(results) && readdirSync(results).length > 0, 'the child to write');
      expect(stoppedAtOnce(dir, 'test')()).toEqual({ said: 'no reports written', code: 2 });
      await ran;
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      useLiveGate(new SharedArrayBuffer(8));
    }
  }, 60_000);

  it('the next run into the directory removes what a write left half done there (the set under way, the outputs moved aside), and its manifest never lists it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'live-leftover-'));
    for (const [name, text] of [['.conformance-writing/summary.json', '{"verdictWords":"INCOMPLETE, IN PROGRESS'], ['.conformance-writing/allure-results/r.json', '{}'], ['.conformance-replaced/junit.xml', '<testsuites/>']] as const) {
      mkdirSync(join(dir, name, '..'), { recursive: true });
      writeFileSync(join(dir, name), text);
    }
    const r = await runCli(['--reports', 'summary,junit', '--report-dir', dir]);
    expect(r.code).toBe(0);
    expect(readdirSync(dir).filter((n) => n.startsWith('.'))).toEqual([]);
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { files: Record<string, string> };
    expect(Object.keys(manifest.files).sort()).toEqual(['exchanges.json', 'junit.xml', 'replay.sh', 'summary.json']);
    expect(await verifyManifest(dir)).toBeUndefined();
  }, 120_000);

  it('the judging reference stopped twice while its last reports are written: it keeps those written on demand, NOT CONFORMANT, IN PROGRESS, says so in one line, and exits 1', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'live-reference-'));
    // The Allure results make the last write last seconds: the second stop comes during it.
    const s = servingProgram('cli/reference', ['--port', '0', '--judge-clients', '--report-dir', dir, '--reports', 'summary,junit,traceability,allure']);
    try {
      const url = await s.url;
      expect((await sendRaw(url, WRONG_TYPE)).status).toBe(400);
      expect((await fetch(`${url}${REPORT_ROUTE}`)).status).toBe(200);
      s.child.kill('SIGTERM');
      await until(() => s.output().includes('reference: stopping (SIGTERM)'), 'the first stop to be said');
      s.child.kill('SIGTERM');
      const words = 'NOT CONFORMANT, IN PROGRESS, 1 EXCHANGE JUDGED SO FAR';
      expect(await s.exit).toBe(1);
      expect(s.output()).toContain(`reference: stopped at once (SIGTERM, a second stop); kept the last reports written whole (${words}), exit 1\n`);
      expect(statedIn(dir)).toEqual({ summary: words, junit: words, traceability: words, exitCode: 1 });
      expect(await verifyManifest(dir)).toBeUndefined();
      expect(readdirSync(dir).filter((n) => n.startsWith('.'))).toEqual([]);
    } finally {
      s.child.kill('SIGKILL');
    }
  }, 120_000);

  describe('the validating proxy', () => {
    let plain: RunningReference;
    beforeAll(async () => { plain = await startReference({}); });
    afterAll(async () => { await plain.close(); });

    it('stopped twice while an exchange is in flight, after a rewrite of its reports: keeps that rewrite, INCOMPLETE, IN PROGRESS, whole, and exits 2 as it states', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'live-proxy-'));
      const held = holding();
      // The second request waits at the target: the first stop gives it time to finish, and meanwhile comes the second.
      const target = await heldFront(plain.url, (n) => (n === 2 ? held.hold() : undefined));
      const proxy = servingProgram('cli/main', ['--proxy', '0', '--base-url', target.url, '--report-dir', dir, '--reports', 'summary,junit,traceability', '--judge-priority', 'normal']);
      try {
        const url = await proxy.url;
        expect((await sendRaw(url, CONFORMANT)).status).toBe(200);
        // A rewrite while traffic comes (every 10 s).
        await until(() => existsSync(join(dir, 'manifest.json')), 'a rewrite of the reports while traffic comes', 60_000);
        const words = 'INCOMPLETE, IN PROGRESS, 1 EXCHANGE JUDGED SO FAR';
        expect(summaryIn(dir)).toMatchObject({ verdictWords: words, exitCode: 2, inProgress: true });
        const inFlight = sendRaw(url, CONFORMANT).catch(() => undefined);
        await held.held;
        proxy.child.kill('SIGTERM');
        await until(() => proxy.output().includes('conformance: stopping (SIGTERM)'), 'the first stop to be said');
        proxy.child.kill('SIGTERM');
        expect(await proxy.exit).toBe(2);
        expect(proxy.output()).toContain(`conformance: stopped at once (SIGTERM, a second stop); kept the last reports written whole (${words}), exit 2\n`);
        expect(statedIn(dir)).toEqual({ summary: words, junit: words, traceability: words, exitCode: 2 });
        expect(await verifyManifest(dir)).toBeUndefined();
        expect(readdirSync(dir).sort()).toEqual(['exchanges.json', 'interface.md', 'junit.xml', 'manifest.json', 'replay.sh', 'summary.json', 'traceability.md']);
        held.release();
        await inFlight;
      } finally {
        held.release();
        proxy.child.kill('SIGKILL');
        await target.close();
      }
    }, 120_000);
  });
});
