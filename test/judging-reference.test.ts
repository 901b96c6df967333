// The judging reference (issue 14): real clients nobody here wrote pass with no finding; every wrong
// client fails exactly the checks for its rule over HTTP, and a refusal names them; the reports are
// written on demand and on stop, with the clients' verdict as the exit code and no secret a client
// sent in any output.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { JsonServiceClient } from '@servicestack/client';
import { createClientAsync } from 'soap';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_CHECKS, REPORT_ROUTE, startJudgingReference, type JudgingReference } from '../lib/cli/judging-reference.js';
import { FIXTURES } from '../lib/contract/export.js';
import { WSDL_FILE } from '../lib/contract/openapi.js';
import { impersonateLogout } from '../lib/contract/operations.js';
import { failedIn, judgedOverHttp, LEGITIMATE_CLIENTS, sendRaw, WRONG_CLIENTS } from './helpers/client-requests.js';
import { servingProgram, WITHOUT_HTML } from './helpers/cli.js';
import { files, readable } from './helpers/outputs.js';
import { ConfirmEmailRequest, SupportStateUserLoginRequest } from './helpers/servicestack-dtos.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** The README's client examples, as a developer would copy them. */
const README_EXAMPLES = (() => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const block = /<!-- client-examples -->\n```sh\n([\s\S]*?)```\n<!-- \/client-examples -->/.exec(readme)?.[1] ?? '';
  return block.split('\n').filter((l) => l.startsWith('curl '));
})();

const sh = (line: string, env: Record<string, string>) => new Promise<{ code: number; stdout: string }>((resolve) =>
  execFile('bash', ['-c', line], { env: { ...process.env, ...env }, timeout: 30_000 }, (e, stdout) => resolve({ code: e ? Number(e.code ?? 1) : 0, stdout })));

describe('real clients against the judging reference', () => {
  let judging: JudgingReference;
  const lines: string[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'judging-'));
  beforeAll(async () => { judging = await startJudgingReference({ reportDir: dir, print: (l) => lines.push(l) }); });
  afterAll(() => judging.close());

  it('ServiceStack JsonServiceClient, both route forms of both JSON operations: no finding', async () => {
    const from = lines.length;
    const client = new JsonServiceClient(judging.url);
    client.basePath = null; // predefined routes: /json/reply/{Request}
    const login = new SupportStateUserLoginRequest({ userName: 'jdoe.support', searchValues: 'x' });
    const confirm = new ConfirmEmailRequest({ recoveryToken: 'rt', verifyEmail: 'jane@example.org', ownerId: 42, isForMM: false });
    expect(await client.post(login)).toMatchObject({ userName: 'jdoe.support' });
    expect(await client.postToUrl('/supportstateuser', login)).toMatchObject({ userName: 'jdoe.support' });
    await client.post(confirm);
    await client.postToUrl('/user/confirmemail', confirm);
    expect(lines.slice(from)).toEqual([
      expect.stringMatching(/^✓ client\.\d+ POST \/json\/reply\/SupportStateUserLoginRequest: no finding$/),
      expect.stringMatching(/^✓ client\.\d+ POST \/supportstateuser: no finding$/),
      expect.stringMatching(/^✓ client\.\d+ POST \/json\/reply\/ConfirmEmailRequest: no finding$/),
      expect.stringMatching(/^✓ client\.\d+ POST \/user\/confirmemail: no finding$/),
    ]);
  });

  it('the soap client built from the exported WSDL: no finding', async () => {
    const from = lines.length;
    const client = await createClientAsync(join(FIXTURES, WSDL_FILE), { handleNilAsNull: true });
    client.setEndpoint(`${judging.url}${impersonateLogout.route}`);
    const [record] = await client.ImpersonateLogoutRequestAsync({}) as [Record<string, unknown>];
    expect(record.UserName).toBe('jdoe.support');
    expect(lines.slice(from)).toEqual([expect.stringMatching(/^✓ client\.\d+ POST \/soap11: no finding$/)]);
  });

  it("curl with the README's examples: each answered 200, no finding", async () => {
    expect(README_EXAMPLES).toHaveLength(4);
    for (const line of README_EXAMPLES) {
      const from = lines.length;
      const r = await sh(`${line} -o /dev/null -w '%{http_code}'`, { URL: judging.url });
      expect(r.stdout, line).toBe('200');
      expect(lines.slice(from), line).toEqual([expect.stringMatching(/^✓ client\.\d+ POST \S+: no finding$/)]);
    }
  });

  it('writes every report on demand, and answers with the summary: every MUST request check evidenced, none failed, and the run in progress (INCOMPLETE)', async () => {
    const r = await fetch(`${judging.url}${REPORT_ROUTE}`);
    expect(r.status).toBe(200);
    const summary = await r.json() as { verdict: string; verdictWords: string; mode: string; checks: { id: string; status: string }[]; counts: { exchanges: { bySource: Record<string, number> } } };
    expect(summary.mode).toBe('traffic');
    expect([summary.verdict, summary.verdictWords]).toEqual(['incomplete', 'INCOMPLETE, IN PROGRESS, 9 EXCHANGES JUDGED SO FAR']);
    expect(summary.checks.map((c) => c.id).sort()).toEqual(CLIENT_CHECKS.map((c) => c.id).sort());
    expect(summary.checks.filter((c) => c.status !== 'passed')).toEqual([]);
    expect(summary.counts.exchanges.bySource.client).toBe(9);
    for (const f of ['summary.json', 'junit.xml', 'report.html', 'traceability.md']) expect(existsSync(join(dir, f)), f).toBe(true);
  });
});

describe('wrong and legitimate clients over HTTP', () => {
  it('each wrong client fails exactly the checks for its rule, and a refusal names them', async () => {
    const outcomes = await judgedOverHttp(WRONG_CLIENTS.map(([, r]) => r));
    WRONG_CLIENTS.forEach(([why, , expected], i) => {
      const o = outcomes[i]!;
      expect(o.failed, why).toEqual([...expected].sort());
      // The reference refuses what ServiceStack would; its error then says which checks to read.
      if (o.status >= 400) for (const id of expected) expect(o.answer, why).toContain(id);
    });
    expect(outcomes.filter((o) => o.status >= 400).length).toBeGreaterThan(10);
  });

  it('every legitimate variation fails nothing', async () => {
    const outcomes = await judgedOverHttp(LEGITIMATE_CLIENTS.map(([, r]) => r));
    LEGITIMATE_CLIENTS.forEach(([why], i) => {
      expect(outcomes[i]!.failed, why).toEqual([]);
      expect(outcomes[i]!.answer, why).not.toContain('(fails ');
    });
  });
});

describe('npm run reference -- --judge-clients', () => {
  const IN_BODY = 'CANARY-JUDGE-RECOVERY-41';
  const IN_HEADER = 'CANARY-JUDGE-BEARER-42';
  const IN_FORM = 'CANARY-JUDGE-FORMTOKEN-43';
  /** Sent where a finding quotes it: the printed line must hide it too. */
  const IN_FINDING = 'CANARY-JUDGE-QUOTED-44';

  const serve = (dir: string, extra: readonly string[] = []) => servingProgram('cli/reference', ['--port', '0', '--judge-clients', '--report-dir', dir, ...extra]);

  it('prints each finding, writes the reports on stop, exits 1, and no output holds a secret the client sent', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'judging-cli-'));
    const s = serve(dir, WITHOUT_HTML);
    try {
      const url = await s.url;
      const wrongType = await sendRaw(url, {
        method: 'POST', path: '/user/confirmemail', headers: { 'content-type': 'application/json', authorization: `Bearer ${IN_HEADER}` },
        body: JSON.stringify({ recoveryToken: IN_BODY, ownerId: '7' }),
      });
      expect(wrongType.status).toBe(400);
      expect(wrongType.body).toContain('(fails REQ-JSON-TYPES)');
      const form = await sendRaw(url, {
        method: 'POST', path: `/user/confirmemail?recoveryToken=${IN_FORM}`, headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `recoveryToken=${IN_FORM}&ownerId=7`,
      });
      expect(form.status).toBe(415);
      const quoted = await sendRaw(url, { method: 'POST', path: '/user/confirmemail', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ recoveryToken: [IN_FINDING] }) });
      expect(quoted.status).toBe(400);
      const onDemand = await fetch(`${url}${REPORT_ROUTE}`);
      expect(onDemand.status).toBe(200);
      expect((await onDemand.json() as { verdict: string }).verdict).toBe('non-conformant');
      s.child.kill('SIGTERM');
      expect(await s.exit).toBe(1);
      const printed = s.output();
      expect(printed).toMatch(/✗ REQ-JSON-TYPES \[MUST\] client\.3 POST \/user\/confirmemail: .*: expected a string at \$\.recoveryToken/);
      expect(failedIn(printed.split('\n'))).toEqual(['REQ-JSON-BODY', 'REQ-JSON-CONTENT-TYPE', 'REQ-JSON-TYPES']);
      expect(printed).toMatch(/Verdict: NOT CONFORMANT/);
      const outputs = [printed, ...files(dir).map((f) => readable(f))].join('\n').toLowerCase();
      expect(outputs).toContain('recoverytoken');
      for (const canary of [IN_BODY, IN_HEADER, IN_FORM, IN_FINDING]) expect(outputs).not.toContain(canary.slice(0, 14).toLowerCase());
    } finally {
      s.child.kill('SIGKILL');
    }
  });

  it('stopped before any client came: exit 2, saying nothing of the interface was observed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'judging-none-'));
    // summary.json alone: this stop writes what any other does (the first test reads every output).
    const s = serve(dir, ['--reports', 'summary']);
    try {
      await s.url;
      s.child.kill('SIGTERM');
      expect(await s.exit).toBe(2);
      expect(s.output()).toMatch(/nothing of this interface was observed/);
      expect(existsSync(join(dir, 'summary.json'))).toBe(true);
    } finally {
      s.child.kill('SIGKILL');
    }
  });

  it('refuses --report-dir without --judge-clients, in one line, exit 2', async () => {
    const r = await new Promise<{ code: number; stderr: string }>((resolve) => execFile(process.execPath, ['bin/run.mjs', 'cli/reference', '--report-dir', 'x'], { cwd: ROOT, timeout: 30_000 },
      (e, _o, stderr) => resolve({ code: e ? Number(e.code) : 0, stderr })));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^reference: --report-dir goes with --judge-clients\n/);
  });
});
