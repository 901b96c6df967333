// A HAR file is read within bounded memory whatever its entries hold: an entry nesting deeper than
// MAX_HAR_ENTRY_DEPTH, or holding more than MAX_HAR_ENTRY_VALUES values, is refused in one line
// (exit 2) before it is built; a header item holding an array of millions of numbers is a header past
// the headers' bound, left out with a warning, its tokens never held.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
const MAX_HAR_ENTRY_DEPTH = 64, MAX_HAR_ENTRY_VALUES = 1_000_000;
import { runCli, type CliRun } from './helpers/cli.js';

const work = mkdtempSync(join(tmpdir(), 'har-entry-bounds-'));
const entry = (extra: { header?: string; member?: string } = {}) =>
  `{"startedDateTime":"2026-01-01T00:00:00Z","time":1,"request":{"method":"POST","url":"http://x/supportstateuser","headers":[{"name":"Content-Type","value":"application/json"}${extra.header ?? ''}],`
  + `"postData":{"mimeType":"application/json","text":"{\\"userName\\":\\"a\\"}"}},"response":{"status":200,"headers":[],"content":{"mimeType":"application/json","text":"{}"}}${extra.member ?? ''}}`;
const har = (name: string, text: string) => { const path = join(work, name); writeFileSync(path, text); return path; };
const file = (name: string, entries: string[]) => har(name, `{"log":{"version":"1.2","creator":{"name":"t","version":"1"},"entries":[${entries.join(',')}]}}`);
const judge = (path: string) => runCli(['--har', path, '--reports', 'summary', '--report-dir', mkdtempSync(join(work, 'r-'))]);

describe.concurrent('HAR entries past the bounds', () => {
  it(`an entry nesting ${MAX_HAR_ENTRY_DEPTH + 1} levels below it is refused in one line naming it, exit 2; ${MAX_HAR_ENTRY_DEPTH - 2} levels are read`, async () => {
    const nest = (n: number) => `,"_x":${'['.repeat(n)}${']'.repeat(n)}`;
    // The entry is a level, and _x's array the next.
    const deep = file('deep.har', [entry(), entry({ member: nest(MAX_HAR_ENTRY_DEPTH) })]);
    const refused = await judge(deep);
    // Named at the bracket past the bound: _x's array is level 1, its 64th bracket level 65.
    const at = readFileSync(deep, 'utf8').indexOf('"_x":[') + 5 + MAX_HAR_ENTRY_DEPTH - 1;
    expect([refused.code, refused.stderr]).toEqual([2, `conformance: ${deep} is not a HAR file: line 1, byte offset ${at}: entry 2 nests deeper than ${MAX_HAR_ENTRY_DEPTH} levels, which no recording needs (refused so that reading it stays bounded)\n`]);
    const read = await judge(file('deep-enough.har', [entry(), entry({ member: nest(MAX_HAR_ENTRY_DEPTH - 2) })]));
    expect(read.stderr).not.toMatch(/nests deeper/);
  });

  it('an entry opening two million arrays and never closing them is refused at the depth bound, not built', async () => {
    const r = await judge(har('deep-open.har', `{"log":{"entries":[{"x":${'['.repeat(2_000_000)}`));
    const at = '{"log":{"entries":[{"x":'.length + MAX_HAR_ENTRY_DEPTH - 1;
    expect([r.code, r.stderr]).toEqual([2, `conformance: ${join(work, 'deep-open.har')} is not a HAR file: line 1, byte offset ${at}: entry 1 nests deeper than ${MAX_HAR_ENTRY_DEPTH} levels, which no recording needs (refused so that reading it stays bounded)\n`]);
  });

  it(`an entry of more than ${MAX_HAR_ENTRY_VALUES} values (a member of numbers) is refused in one line naming the line and byte offset where it begins, exit 2`, async () => {
    // The wide entry second, on the file's second line: its place is counted in lines and bytes.
    const first = `{"log":{"version":"1.2","creator":{"name":"t","version":"1"},"entries":[${entry()},\n`;
    const wide = har('wide.har', `${first}${entry({ member: `,"_x":[${'0,'.repeat(MAX_HAR_ENTRY_VALUES)}0]` })}]}}`);
    const r = await judge(wide);
    expect([r.code, r.stderr]).toEqual([2, `conformance: ${wide} is not a HAR file: line 2, byte offset ${Buffer.byteLength(first)}: entry 2, which begins here, holds more than 1,000,000 values, which no recorded exchange needs (refused so that reading it stays bounded)\n`]);
  });

  it('an entry whose request URL or method is longer than the body cap is refused in one line naming it, exit 2 (it had been counted as another service, named by the cap\'s mark)', async () => {
    const long = 'a'.repeat(1_400_000); // past 1 MiB in base64: 1,398,106 characters
    const url = file('long-url.har', [entry().replace('"url":"http://x/supportstateuser"', `"url":"http://x/supportstateuser?${long}"`)]);
    const method = file('long-method.har', [entry(), entry().replace('"method":"POST"', `"method":"${long}"`)]);
    const [u, m] = await Promise.all([url, method].map((path) => runCli(['--har', path, '--max-body-mib', '1', '--reports', 'summary', '--report-dir', mkdtempSync(join(work, 'r-'))]))) as [CliRun, CliRun];
    expect([u.code, u.stderr]).toEqual([2, `conformance: ${url} is not a HAR file: entry 1's request.url is longer than the 1,398,106 characters a recorded string may hold (the body cap, --max-body-mib, in base64): it cannot be judged\n`]);
    expect([m.code, m.stderr]).toEqual([2, `conformance: ${method} is not a HAR file: entry 2's request.method is longer than the 1,398,106 characters a recorded string may hold (the body cap, --max-body-mib, in base64): it cannot be judged\n`]);
  });

  it('a request method of 3 MiB is judged (REQ-METHOD fails, its finding quoting the method\'s redacted head), the run under 250 MB (360 MB when each quoted value was redacted whole)', async () => {
    const dir = mkdtempSync(join(work, 'r-'));
    const r = await runCli(['--har', file('method.har', [entry().replace('"method":"POST"', `"method":"${'P'.repeat(3 * 1024 * 1024)}"`)]), '--reports', 'summary', '--report-dir', dir]);
    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as { exitCode: number; peakRss: { runBytes: number }; checks: { id: string; evidence: { message: string }[] }[] };
    expect([r.code, summary.exitCode]).toEqual([1, 1]);
    expect(summary.checks.find((c) => c.id === 'REQ-METHOD')!.evidence[0]!.message).toMatch(/^"P*… \(3145728 characters; the rest not shown\)" on a route of SupportStateUserLoginRequest, expected POST or OPTIONS$/);
    expect(summary.peakRss.runBytes).toBeLessThan(250 * 1024 * 1024);
  });

  it('a header item holding four million numbers is left out as a header past the bound, with a warning, and the run stays under 300 MB', async () => {
    const dir = mkdtempSync(join(work, 'r-'));
    const r = await runCli(['--har', file('header-item.har', [entry({ header: `,{"name":"X-A","value":"b","x":[${'0,'.repeat(4_000_000)}0]}` })]), '--reports', 'summary', '--report-dir', dir]);
    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as { warnings: string[]; peakRss: { runBytes: number } };
    expect(summary.warnings).toContainEqual(expect.stringMatching(/entry 1 \(har\.1\): 1 request header left out/));
    expect(summary.peakRss.runBytes).toBeLessThan(300 * 1024 * 1024);
    expect(r.stderr).not.toMatch(/not a HAR file/);
  });

  it('a named pipe given as --har is refused in one line (it cannot be read again from its start), exit 2, not waited on', async () => {
    const fifo = join(work, 'recording.fifo');
    execFileSync('mkfifo', [fifo]);
    const r = await judge(fifo); // nobody writes the pipe: a reader that opened it would wait for ever
    expect([r.code, r.stderr]).toEqual([2, `conformance: ${fifo} is not a regular file: a HAR file may be read twice (quickly, then as a stream from its start); give a pipe as --har - (standard input)\n`]);
  });

  // HAR 1.2 requires request.method and .url: an entry without them is no whole exchange (har-scan.ts).
  it('an entry without method and URL refuses the file in one line naming where, exit 2, no report written, where it was left out and the run CONFORMANT', async () => {
    const bad = '{"request":{"headers":[]},"response":{"status":200,"headers":[],"content":{"text":"{}"}}}';
    const dir = mkdtempSync(join(work, 'r-'));
    const path = file('not-exchange.har', [entry(), bad, entry()]);
    const r = await runCli(['--har', path, '--reports', 'summary', '--report-dir', dir]);
    const offset = readFileSync(path, 'latin1').indexOf('{"headers":[]}') + '{"headers":[]'.length;
    expect([r.code, r.stderr]).toEqual([2, `conformance: ${path} is not a HAR file: line 1, byte offset ${offset}: entry 2 has no request.method, which HAR 1.2 requires (a defect of the recording, not of the service: the exchange is not whole)\n`]);
    expect(readdirSync(dir)).not.toContain('summary.json');
  });
});
