// What the CLI adds for misbehaving targets and transport options: exit codes, reports always
// written, bounded memory against a body of gigabytes, TLS verification, proxies, request caps.
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReference, type RunningReference } from '../lib/reference/server.js';
import { LEAN, runCli, WITHOUT_HTML } from './helpers/cli.js';
import { startHostile, type Hostile, type HostileMode } from './helpers/hostile.js';
import { startProxy } from './helpers/proxy.js';
import { startRawTarget } from './helpers/raw-target.js';
import { expectOneVerdict } from './helpers/verdict-words.js';

const tls = { key: readFileSync('fixtures/tls/server.key', 'utf8'), cert: readFileSync('fixtures/tls/server.pem', 'utf8') };
const reports = () => mkdtempSync(join(tmpdir(), 'conformance-'));
const summaryOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
const noStack = (text: string) => expect(text).not.toMatch(/\n\s+at |node:internal|\.ts:\d+:\d+/);

let https: RunningReference;
let huge: Hostile;
let silent: Hostile;
beforeAll(async () => {
  [https, huge, silent] = await Promise.all([startReference({ tls }), startHostile('huge'), startHostile('silent')]);
});
afterAll(async () => { await Promise.all([https.close(), huge.close(), silent.close()]); });

describe.concurrent('CLI against hostile targets', () => {
  it('a target streaming gigabytes: exit 1, each exchange cut at the cap, peak RSS under 300 MB', async () => {
    const dir = reports();
    const r = await runCli([...LEAN, '--base-url', huge.url, '--report-dir', dir]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/ROUTE-LOGIN-POST \[MUST, 4\.1\] login\.post: response body exceeded the 10 MiB cap/);
    expect(summaryOf(dir).peakRss.checkingBytes).toBeLessThan(300 * 1024 * 1024);
    noStack(r.stdout + r.stderr);
  });

  it('a target answering in one-byte chunks: every body read whole, peak RSS under 300 MB (a view kept per chunk took 2.9 GB)', async () => {
    // A record of 600 KiB, each byte its own chunk ("1\r\nX\r\n"): 20 probes at once, each past the free 256 KiB.
    const body = Buffer.from(`{"userName":"x","pad":"${'a'.repeat(600 * 1024)}"}`);
    const wire = Buffer.alloc(body.length * 6, '1\r\nX\r\n');
    for (let i = 0; i < body.length; i++) wire[i * 6 + 3] = body[i]!;
    const answer = Buffer.concat([Buffer.from('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n'), wire, Buffer.from('0\r\n\r\n')]);
    const target = await startRawTarget(() => answer);
    try {
      const dir = reports();
      const r = await runCli([...LEAN, '--base-url', target.url, '--report-dir', dir, '--timeout', '60000']);
      expect(r.code).toBe(1);
      noStack(r.stdout + r.stderr);
      const s = summaryOf(dir);
      // Read whole and parsed: the record is judged, and lacks its other members.
      expect(s.checks.find((c: { id: string }) => c.id === 'JSON-VALUE-MEMBERS').message).toMatch(/^login\.\S+: ownerId is missing at \$\.ownerId/);
      expect(s.peakRss.runBytes / MB).toBeLessThan(300);
    } finally {
      await target.close();
    }
  });

  it('a Content-Type of 15 014 characters: the console and summary.json state what is wrong with it, the value cut with its length', async () => {
    const type = `text/plain; x=${'a'.repeat(15_000)}`;
    const target = await startRawTarget(() => `HTTP/1.1 200 OK\r\nContent-Type: ${type}\r\nContent-Length: 2\r\n\r\n{}`);
    try {
      const dir = reports();
      const r = await runCli([...LEAN, '--base-url', target.url, '--report-dir', dir]);
      expect(r.code).toBe(1);
      noStack(r.stdout + r.stderr);
      // A cut at the message's end kept 400 characters of the header and lost "expected …".
      const stated = /Content-Type "text\/plain; x=a{100,}…" \(15,014 characters\), expected (application|text)\/[a-z+]+/;
      expect(r.stdout.split('\n').filter((l) => /^\s+✗ /.test(l) && stated.test(l)).length).toBeGreaterThan(0);
      const checks: { id: string; message: string; evidence: { message: string }[] }[] = summaryOf(dir).checks;
      const naming = checks.filter((c) => c.message.includes('Content-Type "text/plain'));
      expect(naming.length).toBeGreaterThan(0);
      for (const c of naming) {
        expect(c.message, c.id).toMatch(stated);
        const quoting = c.evidence.filter((e) => e.message.includes('Content-Type "'));
        expect(quoting.length, c.id).toBeGreaterThan(0);
        for (const e of quoting) expect(e.message, c.id).toMatch(stated);
      }
    } finally {
      await target.close();
    }
  });

  it('a target that never answers: exit 1 with the time limit named, reports written', async () => {
    const dir = reports();
    const r = await runCli(['--reports', 'summary,junit', '--base-url', silent.url, '--report-dir', dir, '--timeout', '1000', '--concurrency', '32']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/no response headers within 1 s/);
    expect(summaryOf(dir).verdict).toBe('non-conformant');
    expect(readFileSync(join(dir, 'junit.xml'), 'utf8')).toMatch(/no response headers within 1 s/);
  });

  it('an unknown host: exit 2 naming the host', async () => {
    const r = await runCli([...LEAN, '--base-url', 'http://no-such-host.invalid', '--report-dir', reports()]);
    expect([r.code, r.stderr]).toEqual([2, 'conformance: cannot reach http://no-such-host.invalid: host not found: no-such-host.invalid\n']);
  });

  it('an untrusted certificate: exit 2 with the TLS failure', async () => {
    const r = await runCli([...LEAN, '--base-url', https.url, '--report-dir', reports()]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`^conformance: cannot reach ${https.url.replace(/[.]/g, '\\.')}: TLS failure with 127\\.0\\.0\\.1:\\d+: .*certificate.*\\n$`));
  });

  it('--ca trusts a private CA: exit 0', async () => {
    const r = await runCli([...LEAN, '--base-url', https.url, '--report-dir', reports(), '--ca', 'fixtures/tls/ca.pem']);
    expect(r.code).toBe(0);
  });

  it('--insecure works and says so, on the console and in summary.json', async () => {
    const dir = reports();
    const r = await runCli([...LEAN, '--base-url', https.url, '--report-dir', dir, '--insecure']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/TLS certificate verification was OFF for this run \(--insecure\)/);
    expect(summaryOf(dir)).toMatchObject({ warnings: ['TLS certificate verification was OFF for this run (--insecure)'], configuration: { options: { insecure: true } } });
  });

  it('a bad --ca: exit 2 in one line', async () => {
    const r = await runCli([...LEAN, '--ca', 'fixtures/tls/nope.pem', '--report-dir', reports()]);
    expect([r.code, r.stderr]).toEqual([2, 'conformance: cannot read --ca fixtures/tls/nope.pem: ENOENT\n']);
  });

  it('HTTP_PROXY is honoured for a deployment, and never used for the embedded reference', async () => {
    const proxy = await startProxy();
    const plain = await startReference();
    try {
      const through = await runCli([...LEAN, '--base-url', plain.url, '--report-dir', reports()], { HTTP_PROXY: proxy.url, NO_PROXY: '' });
      expect(through.code).toBe(0);
      expect(proxy.carried()).toBeGreaterThan(0);
      const embedded = await runCli([...LEAN, '--report-dir', reports()], { HTTP_PROXY: 'http://127.0.0.1:9', NO_PROXY: '' });
      expect(embedded.code).toBe(0);
    } finally {
      await Promise.all([proxy.close(), plain.close()]);
    }
  });

  it('--rate 10: a conforming target still passes, and summary.json states the rate', async () => {
    // That the wait for a slot is not charged to an exchange's time limits is shown on a controlled
    // clock (rate-clock.test.ts); here a generous --timeout, so the machine's load never decides.
    const dir = reports();
    const r = await runCli([...LEAN, '--report-dir', dir, '--rate', '10', '--timeout', '30000']);
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(summaryOf(dir).configuration.options).toMatchObject({ rate: 10 });
  });

  it('an unreachable target under --max-requests is still unreachable: exit 2', async () => {
    const r = await runCli([...LEAN, '--base-url', 'http://127.0.0.1:9', '--report-dir', reports(), '--max-requests', '5']);
    expect([r.code, r.stderr]).toEqual([2, 'conformance: cannot reach http://127.0.0.1:9: connection refused by 127.0.0.1:9\n']);
  });

  it('--max-requests caps the run: unsent exchanges leave MUST checks unevaluated, exit 2', async () => {
    const dir = reports();
    const r = await runCli([...LEAN, '--report-dir', dir, '--max-requests', '5']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^conformance: run incomplete: \d+ MUST check\(s\) not evaluated \(\S+: .*not sent \(request cap reached\)/);
    const s = summaryOf(dir);
    expect(s.verdict).toBe('incomplete');
    expect(s.exchanges.filter((e: { error?: string }) => e.error?.startsWith('not sent')).length).toBe(15); // 20 probes, 5 sent
  });

  it('--max-requests that leaves accounts unsent: INCOMPLETE in every output and exit 2, the unsent account requests counted', async () => {
    // 20 probes and 10 accounts of one request each, 25 requests allowed: every check has evidence,
    // but 5 accounts were never asked about.
    const dir = reports();
    const accounts = join(dir, 'accounts.jsonl');
    writeFileSync(accounts, Array.from({ length: 10 }, (_, i) => JSON.stringify({ SupportStateUserLoginRequest: { userName: `user${i}`, searchValues: `s${i}` } })).join('\n'));
    const r = await runCli(['--reports', 'summary,traceability,junit', '--quiet', '--report-dir', dir, '--accounts', accounts, '--max-requests', '25']);
    expectOneVerdict(dir, r.stdout, r.code, 'INCOMPLETE', false);
    expect(r.stderr).toBe('conformance: run incomplete: 5 account request(s) not sent (the request cap, --max-requests, was reached)\n');
    expect(summaryOf(dir).counts.exchanges.notSent).toEqual({ case: 5 });
    expect(summaryOf(dir).warnings).toContain('5 account request(s) were not sent (the request cap, --max-requests, was reached): the run is incomplete');
    expect(r.stdout).toContain('Judged 30 exchanges (20 probes, 10 account requests, of which 5 not sent) of 10 accounts.');
  });
});

/** Bodies under the 10 MiB cap that flood one dimension of their shape, each answered to every request. */
const FLOODS: [HostileMode, RegExp][] = [
  ['xml-elements', /the body is XML that has an object or element with more than 10,000 members at line 1, column \d+/],
  ['xml-deep', /the body is XML that nests deeper than 64 levels/],
  ['xml-attributes', /the body is XML that has an element with more than 64 attributes/],
  ['xml-cdata', /the body is XML that has an object or element with more than 10,000 members/],
  ['xml-texts', /the body is XML that holds more than 50,000 values/],
  ['json-literals', /the body is JSON that holds more than 50,000 values/],
  ['json-members', /the body is JSON that has an object or element with more than 10,000 members/],
  ['json-number', /the body is JSON that has a number longer than 64 characters/],
  ['json-deep', /the body is JSON that nests deeper than 64 levels/],
  ['gzip', /the body is encoded \(Content-Encoding "gzip"\), which the request did not ask for; not decoded/],
];
const MB = 1024 * 1024;
/** The floods whose reports are presented (junit, Allure, and the presentation's memory), one of
 *  each format: presenting every flood took most of this file's time. report.html, Allure's rendering
 *  of those results in another process, is left out: it is about no flood. */
const PRESENTED: ReadonlySet<HostileMode> = new Set(['xml-elements', 'json-members']);

describe.concurrent('CLI against floods: bounded memory and time, one-line reasons, reports written', () => {
  for (const [mode, reason] of FLOODS) {
    it(PRESENTED.has(mode) ? `${mode}, every report presented` : mode, async () => {
      const target = await startHostile(mode);
      try {
        const dir = reports();
        // A generous --timeout: ten floods are served at once from this process; slowness under load is not what is tested.
        const r = await runCli([...(PRESENTED.has(mode) ? WITHOUT_HTML : LEAN), '--base-url', target.url, '--report-dir', dir, '--quiet', '--timeout', '60000']);
        expect([r.code, r.stderr]).toEqual([1, '']);
        noStack(r.stdout);
        const s = summaryOf(dir);
        // The reason is named by the checks that read the body, in one line each.
        expect(s.checks.map((c: { message: string }) => c.message).join('\n')).toMatch(reason);
        for (const c of s.checks) expect(c.message, c.id).not.toMatch(/\n/);
        expect(readFileSync(join(dir, 'traceability.md'), 'utf8').length).toBeGreaterThan(100);
        // Memory: the run under 300 MB at the default 10 MiB cap.
        expect(s.peakRss.runBytes / MB, 'run').toBeLessThan(300);
        if (!PRESENTED.has(mode)) return;
        // The child that presented it too, and every report written.
        for (const f of ['junit.xml']) expect(readFileSync(join(dir, f), 'utf8').length, f).toBeGreaterThan(100);
        expect(s.peakRss.presentationBytes / MB, 'presentation').toBeLessThan(300);
        // An attachment shows a flood's first 16 KiB (exchanges.json keeps what was kept of it): a
        // few checks each attaching a quarter MiB cost the presentation tens of MB.
        const results = join(dir, 'allure-results');
        expect(Math.max(...readdirSync(results).map((f) => statSync(join(results, f)).size)), 'largest attachment').toBeLessThan(17 * 1024);
      } finally {
        await target.close();
      }
    });
  }
});
