// A curl command of summary.json (exchanges[].curl, checks[].replay, checks[].shrunk.curl) wrote a
// header value and a URL out whole: a recorded header of a mebibyte of one character made a command
// of a mebibyte, in every place it stands. A run of one plain character is now made by a command in
// them too, as in a body (exchange-text.ts, LONG_RUN): the command is short and says how many of
// which character it writes, and the shell still gives curl the very same bytes: a header value
// and a URL too long for one argument (Linux: 128 KiB) in a file curl reads (-H @file, -G).
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { CATALOGUE } from '../lib/checks/catalogue.js';
import { DEFAULT_NAMESPACES } from '../lib/contract/namespaces.js';
import { runConformance } from '../lib/engine/run.js';
import { recordedResponse, type Exchange } from '../lib/http/exchange.js';
import { Redactor } from '../lib/reporting/redact.js';
import { buildReport } from '../lib/reporting/report.js';

const MIB = 1024 * 1024;
const record = JSON.parse(readFileSync(new URL('../fixtures/reference/user-details.json', import.meta.url), 'utf8')) as Record<string, unknown>;
const HEADER = `x-trace: ${'a'.repeat(MIB)}`;
const URL_SENT = `http://example.test/supportstateuser?q=${'b'.repeat(MIB)}`;

/** What the shell gives `command`'s curl, each argument a line, and in place of each file curl reads
 *  (-H @-, -H @/dev/fd/3, --data-binary @-) its text: a shell function in place of curl (no exec, so
 *  no system limit on an argument's length). */
const argumentsOf = (command: string) => new Promise<string[]>((resolve, reject) => {
  const stub = 'curl() { for a in "$@"; do case "$a" in @-) cat; echo;; @/dev/fd/3) cat <&3;; *) printf "%s\\n" "$a";; esac; done; }';
  execFile('sh', ['-c', `${stub}\n${command}`], { maxBuffer: 8 * MIB }, (e, stdout) => (e ? reject(e) : resolve(stdout.split('\n'))));
});

it('every curl command of the report of an exchange with a header value and a URL of a mebibyte of one character is under 1 000 characters, and gives curl the same header (in a file it reads) and URL (its query in a file it reads, -G)', async () => {
  const ex: Exchange = {
    id: 'har.1', title: 'recorded login', origin: { source: 'har', vouched: false },
    request: { method: 'GET', url: URL_SENT, headers: { 'x-trace': 'a'.repeat(MIB) } },
    // An unknown member: JSON-UNKNOWN-MEMBERS fails, so the report holds a failed check's replay.
    response: recordedResponse(200, { 'content-type': 'application/json; charset=utf-8' }, Buffer.from(JSON.stringify({ ...record, unknownMember: 1 }))),
    startedAt: new Date(0).toISOString(), durationMs: 1,
  };
  const run = await runConformance({ baseUrl: 'http://example.test', recorded: [ex], mode: 'traffic', checks: CATALOGUE, namespaces: DEFAULT_NAMESPACES, values: {}, extraHeaders: {}, timeoutMs: 1000, maxBodyBytes: 8 * MIB, probes: false });
  const report = buildReport(run, { redactor: new Redactor({ showPersonalData: false, secrets: [] }), harness: { name: 'h', version: '0' }, targetDescription: 't', configuration: {} });
  const commands = [...report.exchanges.map((e) => e.curl), ...report.checks.flatMap((c) => [c.replay, c.shrunk?.curl]).filter((c) => c !== undefined)];
  expect(commands.length).toBeGreaterThan(1);
  for (const command of commands) {
    expect(command.length).toBeLessThan(1000);
    expect(command).toContain(`head -c ${MIB} /dev/zero | tr '\\0' 'a'`);
    const args = await argumentsOf(command);
    expect(args).toContain(HEADER);
    // No argument of a mebibyte (Linux takes 128 KiB in one): the query read from a file, appended to the URL.
    expect(args).toEqual(expect.arrayContaining(['-G', '--data-binary', URL_SENT.slice(URL_SENT.indexOf('?') + 1), URL_SENT.slice(0, URL_SENT.indexOf('?'))]));
    expect(Math.max(...args.filter((a) => a !== HEADER && !URL_SENT.endsWith(a)).map((a) => a.length))).toBeLessThan(1000);
  }
}, 60_000);
