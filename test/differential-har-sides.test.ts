// --legacy-url with --har sends a recording's requests to both deployments, and the request checks
// judge them: the recording's client wrote them, not the candidate. A bad recorded request (an enum
// name in another letter case) made a candidate that is the reference itself "NOT CONFORMANT" with no
// word of whose fault it was; the verdict line and summary.json now give each side's verdict, as a
// plain --har run does, and --judge server leaves the recording's client out.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReference, type RunningReference } from '../lib/reference/server.js';
import { runCli } from './helpers/cli.js';

let legacy: RunningReference;
beforeAll(async () => { legacy = await startReference({ port: 0 }); });
afterAll(async () => { await legacy.close(); });

const body = '{"recoveryToken":"t","verifyEmail":"e","systemCode":"unspecified"}';
const recording = (dir: string): string => {
  const har = join(dir, 'recorded.har');
  writeFileSync(har, JSON.stringify({ log: { version: '1.2', entries: [{
    startedDateTime: '2026-11-28T11:28:12.833Z', time: 1,
    request: { method: 'POST', url: 'http://legacy.example/user/confirmemail', headers: [{ name: 'Content-Type', value: 'application/json' }], postData: { mimeType: 'application/json', text: body } },
    response: { status: 0, headers: [], content: {} },
  }] } }));
  return har;
};

describe('--legacy-url --har of a recorded request that breaks 2.2, the candidate the reference', () => {
  it('states the server CONFORMANT and the client NOT CONFORMANT, in the verdict line and summary.json, exit 1 as the run\'s verdict', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'differential-har-sides-'));
    const r = await runCli(['--legacy-url', legacy.url, '--har', recording(dir), '--report-dir', join(dir, 'out'), '--reports', 'summary']);
    expect(r.stdout).toMatch(/^Verdict: NOT CONFORMANT \(judged: server CONFORMANT, client NOT CONFORMANT; /m);
    const summary = JSON.parse(readFileSync(join(dir, 'out', 'summary.json'), 'utf8')) as { sides: unknown; exitCode: number; checks: { id: string; status: string }[] };
    expect(summary.sides).toEqual({ server: 'conformant', client: 'non-conformant' });
    expect(summary.checks.filter((c) => c.status === 'failed').map((c) => c.id)).toEqual(['REQ-JSON-TYPES']);
    expect([r.code, summary.exitCode]).toEqual([1, 1]);
  }, 120_000);

  it('with --judge server, judges the candidate alone: CONFORMANT, exit 0', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'differential-har-sides-'));
    const r = await runCli(['--legacy-url', legacy.url, '--har', recording(dir), '--judge', 'server', '--report-dir', join(dir, 'out'), '--reports', 'summary']);
    expect(r.stdout).toMatch(/^Verdict: CONFORMANT \(MUST /m);
    expect(r.code).toBe(0);
  }, 120_000);
});
