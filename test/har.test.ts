// Recorded traffic (--har): a HAR written by Chromium while a page talked to the reference is judged
// offline, nothing sent: conformant for the reference, the fault's own check failing for a faulty
// one; a file that is no HAR stops the run in one line; an entry recorded without its body is not
// judged against the success contract; secrets the recording holds reach no output.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReference, type RunningReference } from '../lib/reference/server.js';
import { launchChromium } from './helpers/browser.js';
import { recordPageTraffic } from './helpers/page-traffic.js';
import { childEnv, LEAN, runCli, WITHOUT_HTML } from './helpers/cli.js';
import { files, readable } from './helpers/outputs.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const TOKEN = 'CANARY-HAR-BEARER-93kq';
const work = mkdtempSync(join(tmpdir(), 'har-'));
const reports = () => mkdtempSync(join(work, 'reports-'));
let plain: RunningReference;
let broken: RunningReference;
const hars: Record<string, string> = {};


beforeAll(async () => {
  [plain, broken] = await Promise.all([
    startReference(),
    startReference({ variants: [{
      name: 'three-digit-datetime', description: 'createdDate with three fractional digits',
      editJson: (n) => (n.t === 'object' ? { ...n, entries: n.entries.map(([k, v]) => [k, k === 'createdDate' ? { t: 'string', value: '2019-03-01T08:15:30.500' } : v] as const) } : n),
    }] }),
  ]);
  // The page's traffic to each, recorded by one Chromium.
  const browser = await launchChromium();
  try {
    hars.plain = await recordPageTraffic(plain.url, join(work, 'plain.har'), TOKEN, browser);
    hars.broken = await recordPageTraffic(broken.url, join(work, 'broken.har'), TOKEN, browser);
  } finally {
    await browser.close();
  }
}, 120_000);
afterAll(async () => { await Promise.all([plain.close(), broken.close()]); });

const summaryOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));

describe('--har: a Chromium recording judged offline', () => {
  it('of the reference: conformant, every exchange of the interface judged, the bearer token in no output', async () => {
    const dir = reports();
    // Every output but the Allure HTML (Allure's rendering of allure-results, scanned here): the
    // test below builds it and scans it.
    const r = await runCli(['--har', hars.plain!, '--base-url', plain.url, '--report-dir', dir, '--quiet', ...WITHOUT_HTML]);
    expect([r.code, r.stderr]).toEqual([0, '']);
    const s = summaryOf(dir);
    expect(s.mode).toBe('traffic');
    expect(s.counts.exchanges.bySource).toEqual({ har: 9 });
    expect(s.counts.exchanges.notInterfaceTotal).toBe(1); // the page itself (GET /) is no route of the interface
    const passed = s.checks.filter((c: { status: string }) => c.status === 'passed').map((c: { id: string }) => c.id);
    expect(passed).toEqual(expect.arrayContaining(['ROUTE-LOGIN-POST', 'ROUTE-LOGIN-REPLY', 'ROUTE-CONFIRM-POST', 'ROUTE-LOGIN-OPTIONS', 'ROUTE-SOAP-POST', 'FORMAT-JSON-EXTENSION', 'FORMAT-JSON-QUERY', 'JSONP-CALLBACK', 'JSON-DATETIME', 'SOAP-ORDER']));
    expect(s.checks.filter((c: { status: string }) => c.status === 'failed')).toEqual([]);
    // What the traffic proves: kinds seen, checks with and without evidence, what each of the latter needs.
    expect(s.coverage.kinds).toEqual(s.counts.exchanges.kinds);
    expect(s.coverage.notInterface).toBe(1);
    expect(s.coverage.evidenced).toEqual(expect.arrayContaining(passed));
    const unfed = s.checks.filter((c: { counts: { judged: number } }) => c.counts.judged === 0).map((c: { id: string }) => c.id);
    expect(s.coverage.withoutEvidence.map((w: { id: string }) => w.id)).toEqual(unfed);
    expect(s.coverage.withoutEvidence.find((w: { id: string }) => w.id === 'FORMAT-SOAP11-QUERY').needs).toMatch(/format=soap11/);
    expect(r.stdout).toMatch(new RegExp(`Checks with evidence: ${s.coverage.evidenced.length} of ${s.checks.length}; none for `));
    expect(readFileSync(join(dir, 'traceability.md'), 'utf8')).toMatch(/## What this traffic proves[\s\S]*\| `FORMAT-SOAP11-QUERY` \| MUST \| /);
    expect(files(dir).filter((f) => f.includes('/allure-results/')).length).toBeGreaterThan(50);
    const outputs = [r.stdout, ...files(dir).map(readable)].join('\n');
    expect(outputs).not.toContain(TOKEN.slice(0, 12));
  });

  it('of a faulty reference: exit 1, the fault\'s check failing on the recorded exchange', async () => {
    const dir = reports();
    const r = await runCli([...LEAN, '--har', hars.broken!, '--report-dir', dir, '--quiet']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/✗ JSON-DATETIME \[MUST, 2 Types\] .*har\.\d+: "2019-03-01T08:15:30.500"/);
  });

  it('--base-url keeps only the entries recorded against it', async () => {
    const dir = reports();
    const r = await runCli([...LEAN, '--har', hars.plain!, '--base-url', 'http://127.0.0.1:1', '--report-dir', dir, '--quiet']);
    expect(r.code).toBe(2); // nothing of the interface left: nothing observed
    expect(r.stdout).toMatch(/! 9 entries recorded against other hosts or paths than http:\/\/127\.0\.0\.1:1 were left out/);
  });
});

describe('--har: what a recording may lack', () => {
  const entry = (status: number, content: object) => ({
    startedDateTime: '2026-11-25T00:00:00.000Z', time: 3,
    request: { method: 'POST', url: 'http://svc.test/supportstateuser', headers: [{ name: 'Content-Type', value: 'application/json' }], postData: { mimeType: 'application/json', text: '{}' } },
    response: { status, headers: [{ name: 'Content-Type', value: 'application/json; charset=utf-8' }], content },
  });
  const har = (name: string, text: string) => { const p = join(work, name); writeFileSync(p, text); return p; };

  it('an answer recorded without its body, or no answer at all: the checks that need it skip, none fails', async () => {
    const dir = reports();
    const file = har('nobody.har', JSON.stringify({ log: { version: '1.2', entries: [entry(200, { size: 4581, mimeType: 'application/json' }), entry(0, {})] } }));
    const r = await runCli([...LEAN, '--har', file, '--report-dir', dir, '--quiet']);
    expect(r.code).toBe(0);
    const s = summaryOf(dir);
    expect(s.checks.filter((c: { status: string }) => c.status === 'failed')).toEqual([]);
    expect(s.checks.find((c: { id: string }) => c.id === 'JSON-DATETIME').message).toMatch(/no response body recorded in the HAR|no response recorded in the HAR/);
  });

  it('one entry with a body of 150 MB costs the body cap, not the body: judged as too large, memory bounded', async () => {
    const file = join(work, 'huge-entry.har');
    const [head, tail] = JSON.stringify({ log: { entries: [entry(200, { text: '@', mimeType: 'application/json' })] } }).split('"@"');
    writeFileSync(file, `${head}"${'a'.repeat(150 * 1024 * 1024)}"${tail}`);
    const dir = reports();
    const r = await runCli([...LEAN, '--har', file, '--report-dir', dir, '--quiet']);
    const s = summaryOf(dir);
    expect([r.code, r.stderr]).toEqual([1, '']); // a body too large to judge fails the checks that need it
    expect(s.exchanges[0].error).toMatch(/response body exceeded the 10 MiB cap/);
    expect(s.peakRss.checkingBytes / 1024 / 1024).toBeLessThan(300);
  });

  it('a form recorded as postData.params (HAR 1.2 allows it instead of text) is judged as the form it was', async () => {
    const form = { ...entry(200, { text: '{}', mimeType: 'application/json' }) };
    form.request = { ...form.request, headers: [{ name: 'Content-Type', value: 'application/x-www-form-urlencoded' }], postData: { mimeType: 'application/x-www-form-urlencoded', params: [{ name: 'userName', value: 'a b' }] } as never };
    const dir = reports();
    const r = await runCli([...LEAN, '--har', har('params.har', JSON.stringify({ log: { entries: [form] } })), '--report-dir', dir, '--quiet']);
    expect(r.code).toBe(1);
    const failed = summaryOf(dir).checks.filter((c: { status: string }) => c.status === 'failed').map((c: { id: string }) => c.id);
    expect(failed).toEqual(expect.arrayContaining(['REQ-JSON-CONTENT-TYPE', 'REQ-JSON-BODY']));
  });

  it('traffic that gave no MUST check anything to judge proves nothing: exit 2, never CONFORMANT', async () => {
    // A GET answered 405: with REQ-METHOD left out, nothing judges it (the answer is an error, the
    // request has no body).
    const get = { ...entry(405, { text: '', mimeType: 'text/plain' }), request: { method: 'GET', url: 'http://svc.test/supportstateuser', headers: [] } };
    const dir = reports();
    const r = await runCli([...LEAN, '--har', har('get.har', JSON.stringify({ log: { entries: [get] } })), '--skip', 'REQ-METHOD', '--report-dir', dir, '--quiet']);
    expect([r.code, r.stderr]).toEqual([2, 'conformance: nothing of this interface could be judged: its 1 exchange(s) gave no MUST check anything to judge (0 exchange(s) of other services)\n']);
    expect(summaryOf(dir).verdict).toBe('nothing-observed');
  });

  it("secrets under any service's names, and e-mail addresses anywhere, reach no output", async () => {
    // Names the interface never uses but any deployment's traffic carries: token headers, a password
    // member, form field and SOAP header element, token query parameters, "name: value" text, and
    // e-mail addresses in an error's message and stack trace.
    const h = (name: string, value: string) => ({ name, value });
    const e = (method: string, url: string, headers: object[], body: string, status: number, type: string, text: string) => ({
      startedDateTime: '2026-11-25T00:00:00.000Z', time: 1,
      request: { method, url, headers, postData: { mimeType: 'x', text: body } },
      response: { status, headers: [h('Content-Type', type)], content: { mimeType: type, text } },
    });
    const entries = [
      e('POST', 'http://svc.test/supportstateuser?access_token=CANARYQ1xyzw&token=CANARYQ2xyzw', [h('Content-Type', 'application/json'), h('X-Auth-Token', 'CANARYH1abcd'), h('X-Access-Token', 'CANARYH2abcd'), h('Api-Key', 'CANARYH3abcd'), h('X-ss-id', 'CANARYH4abcd')],
        '{"userName":"a","password":"CANARYB1pwd0"}', 500, 'application/json', '{"responseStatus":{"errorCode":"X","message":"user jane.canary@example.org failed","stackTrace":"at Login() for bob.canary@example.org"}}'),
      e('POST', 'http://svc.test/user/confirmemail', [h('Content-Type', 'application/x-www-form-urlencoded')], 'password=CANARYF1pwd0&x=1', 400, 'text/plain', 'apiKey: CANARYT1key0\nsession_id: CANARYT2sess\nemail: carol.canary@example.org'),
      e('POST', 'http://svc.test/soap11', [h('Content-Type', 'text/xml; charset=utf-8'), h('SOAPAction', 'ImpersonateLogoutRequest')],
        '<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Header><Security><Password>CANARYS1pwd0</Password></Security></s:Header><s:Body/></s:Envelope>', 500, 'text/plain', 'no'),
    ];
    const dir = reports();
    const r = await runCli(['--har', har('names.har', JSON.stringify({ log: { entries } })), '--report-dir', dir, ...WITHOUT_HTML]);
    expect(r.stderr).toBe('');
    const outputs = [r.stdout, ...files(dir).map(readable)].join('\n');
    expect(outputs).toContain('at Login() for «personal: string'); // the control: the stack trace is shown, its address masked
    for (const canary of ['CANARYQ1', 'CANARYQ2', 'CANARYH1', 'CANARYH2', 'CANARYH3', 'CANARYH4', 'CANARYB1', 'CANARYF1', 'CANARYT1', 'CANARYT2', 'CANARYS1', 'canary@example']) {
      expect(outputs, canary).not.toContain(canary);
    }
  });

  it('a file that is no HAR, or is cut off, stops the run in one line naming where, exit 2, no value quoted', async () => {
    const cut = JSON.stringify({ log: { entries: [entry(200, { text: '{"apiKey":"CANARY-HAR-CUT-77"}' }), entry(200, { text: '{}' })] } });
    for (const [file, message] of [
      // Cut inside a string: named at the file's end (old readers: "between bytes 0 and N", a range of a chunk).
      [har('cut.har', cut.slice(0, cut.length - 40)), new RegExp(`is not a HAR file: line 1, byte offset ${Buffer.byteLength(cut) - 40}: not valid JSON \\(the file ends inside a string; a defect of the recording, not of the service\\)$`)],
      [har('null-entries.har', '{"log":{"entries":null}}'), /is not a HAR file: line 1, byte offset 18: the file has log\.entries as null, where HAR 1\.2 requires an array \(a defect of the recording, not of the service\)$/],
      [har('null-entry.har', '{"log":{"entries":[null]}}'), /is not a HAR file: line 1, byte offset 19: entry 1 is null, where HAR 1\.2 requires an object \(a defect of the recording, not of the service\)$/],
      [har('not.har', '{"hello":"world"}'), /is not a HAR file: line 1, byte offset 16: the file has no log, which HAR 1\.2 requires \(a defect of the recording, not of the service\)$/],
      [join(work, 'missing.har'), /cannot read .*missing\.har: ENOENT$/],
      [har('b64.har', JSON.stringify({ log: { entries: [entry(200, { text: '!!!not base64@@@', encoding: 'base64' })] } })), /is not a HAR file: line 1, byte offset \d+: entry 1 has response\.content\.text not in base64, where response\.content\.encoding says base64 \(a defect of the recording, not of the service\)$/],
    ] as const) {
      const r = await runCli([...LEAN, '--har', file, '--report-dir', reports(), '--quiet']);
      expect([r.code, r.stderr.split('\n').length], file).toEqual([2, 2]);
      expect(r.stderr.trimEnd(), file).toMatch(new RegExp(`^conformance: .*${message.source}`));
      expect(r.stderr).not.toMatch(/CANARY|at .*\(/);
    }
  });

  it('judges several recordings in one run, one of them read from standard input', async () => {
    const dir = reports();
    const r = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, ['bin/run.mjs', 'cli/main', ...LEAN, '--har', hars.plain!, '--har', '-', '--report-dir', dir, '--quiet'], { cwd: ROOT, env: childEnv() });
      let [stdout, stderr] = ['', ''];
      child.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
      child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
      child.on('exit', (code) => resolve({ code: code ?? -1, stdout, stderr }));
      child.stdin.end(readFileSync(hars.broken!));
    });
    expect([r.code, r.stderr]).toEqual([1, '']);
    expect(r.stdout).toContain(`judging the recordings ${hars.plain!}, standard input`);
    const s = summaryOf(dir);
    expect(s.counts.exchanges.bySource).toEqual({ har: 18 });
    // The fault is on the second recording's exchange, named by its file's place in the run.
    expect(s.checks.find((c: { id: string }) => c.id === 'JSON-DATETIME').evidence[0].exchange).toMatch(/^har2\.\d+$/);
    const twice = await runCli([...LEAN, '--har', '-', '--har', '-']);
    expect([twice.code, twice.stderr]).toEqual([2, 'conformance: --har - (standard input) can be given once\n']);
  });

  it('does not combine with --accounts or --generate', async () => {
    const r = await runCli([...LEAN, '--har', 'x.har', '--generate', '5']);
    expect([r.code, r.stderr]).toEqual([2, 'conformance: --har judges a recording and sends nothing; it does not combine with --accounts or --generate\n']);
  });
});
