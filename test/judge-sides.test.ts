// --judge server|client|both over a recording holding both sides: a client's bad request fails the
// clients' side, not the server's; the verdict line names the sides judged and summary.json gives
// each side's verdict.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LEAN, runCli } from './helpers/cli.js';
import { call, useReference } from './helpers/reference.js';

const ref = useReference({});
const work = mkdtempSync(join(tmpdir(), 'judge-sides-'));

/** A HAR of one exchange: a client's login request with a PascalCase member (REQ-JSON-MEMBER-NAMES
 *  fails it), and the reference's real, conformant answer to it. */
async function recording(): Promise<string> {
  const body = '{"UserName":"a"}';
  const got = await call(`${ref.url}/supportstateuser`, { body, headers: { 'content-type': 'application/json' } });
  expect(got.status).toBe(200);
  const h = (name: string, value: string) => ({ name, value });
  const entry = {
    startedDateTime: '2026-11-25T00:00:00.000Z', time: 1,
    request: { method: 'POST', url: 'http://svc.test/supportstateuser', headers: [h('Content-Type', 'application/json')], postData: { mimeType: 'application/json', text: body } },
    response: { status: 200, headers: [h('Content-Type', got.type!)], content: { mimeType: got.type!, text: got.body } },
  };
  const file = join(work, `both-${Math.random().toString(36).slice(2)}.har`);
  writeFileSync(file, JSON.stringify({ log: { version: '1.2', entries: [entry] } }));
  return file;
}

async function judge(sides?: string) {
  const dir = mkdtempSync(join(work, 'reports-'));
  const r = await runCli([...LEAN, '--har', await recording(), '--report-dir', dir, ...(sides ? ['--judge', sides] : [])]);
  const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as { sides: Record<string, string>; checks: { id: string; status: string }[] };
  return { ...r, summary, verdictLine: /^Verdict: .*$/m.exec(r.stdout)?.[0] };
}

describe.concurrent('--judge', () => {
  it('both (the default): the client\'s bad request fails the run, and each side has its verdict', async () => {
    const r = await judge();
    expect(r.code).toBe(1);
    expect(r.summary.sides).toEqual({ server: 'conformant', client: 'non-conformant' });
    expect(r.verdictLine).toMatch(/^Verdict: NOT CONFORMANT \(judged: server CONFORMANT, client NOT CONFORMANT; MUST /);
    expect(r.summary.checks.find((c) => c.id === 'REQ-JSON-MEMBER-NAMES')?.status).toBe('failed');
  });

  it('server: only the answers are judged, and the same recording is conformant', async () => {
    const r = await judge('server');
    expect(r.code).toBe(0);
    expect(r.summary.sides).toEqual({ server: 'conformant' });
    expect(r.verdictLine).toMatch(/^Verdict: CONFORMANT \(judged: server CONFORMANT; MUST /);
    expect(r.summary.checks.some((c) => c.id.startsWith('REQ-'))).toBe(false);
  });

  it('client: only the requests are judged, and the bad one fails', async () => {
    const r = await judge('client');
    expect(r.code).toBe(1);
    expect(r.summary.sides).toEqual({ client: 'non-conformant' });
    expect(r.summary.checks.every((c) => c.id.startsWith('REQ-'))).toBe(true);
  });

  it('a bad value, or --judge without traffic to judge, is refused in one line', async () => {
    expect(await runCli(['--har', 'x.har', '--judge', 'servers'])).toMatchObject({ code: 2, stderr: 'conformance: --judge must be server, client or both, not "servers"\n' });
    expect(await runCli(['--judge', 'server'])).toMatchObject({ code: 2, stderr: 'conformance: --judge chooses the sides of recorded (--har) or proxied (--proxy) traffic; a probe run judges the server only\n' });
  });
});
