// Linux takes at most 128 KiB in one argument of a command (MAX_ARG_STRLEN): replay.sh's curl of a
// recorded request with a longer header value or URL failed with "Argument list too long" (and
// dash ended with a segmentation fault on a header of many bytes past ASCII, each made by a command
// in one word), replaying nothing. Such fields and URL now go to curl in a config it reads (-K), so
// the target gets the very bytes recorded: a raw target here compares them. And the reports showed
// such a URL and header line whole in every place: now they are cut as a body is, saying so, and
// replay.sh still sends them whole (its curl is made from the exchange, not from the text shown).
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOGUE } from '../lib/checks/catalogue.js';
import { DEFAULT_NAMESPACES } from '../lib/contract/namespaces.js';
import { runConformance } from '../lib/engine/run.js';
import { exchangeHeaders, recordedResponse, type Exchange } from '../lib/http/exchange.js';
import { Redactor } from '../lib/reporting/redact.js';
import { MAX_SHOWN_LINE } from '../lib/reporting/exchange-text.js';
import { buildReport, summaryOf, type Report } from '../lib/reporting/report.js';
import { replayScript } from '../lib/reporting/replay-script.js';
import { startRawTarget, type RawTarget } from './helpers/raw-target.js';

const KIB = 1024;
const record = JSON.parse(readFileSync(new URL('../fixtures/reference/user-details.json', import.meta.url), 'utf8')) as Record<string, unknown>;
let target: RawTarget;
beforeAll(async () => { target = await startRawTarget(() => 'HTTP/1.1 200 OK\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: 2\r\n\r\n{}'); });
afterAll(async () => { await target.close(); });

/** `n` characters of `alphabet`, varied (no run of one character), as words: nothing a redactor reads as a secret. */
const varied = (n: number, alphabet: string): string => {
  let text = '';
  for (let i = 0; text.length < n; i++) text += `w${i}${alphabet[i % alphabet.length]}${alphabet[(i * 7) % alphabet.length]}`;
  return text.slice(0, n);
};
/** `n` characters of words of letters, each ended by a character of `alphabet`: no digit, -, t, f or n,
 *  each of which a redactor counts as a JSON value. */
const lettered = (n: number, alphabet: string): string => {
  const letters = 'abcdeghijklmopqrsuvwxyz';
  let text = '';
  for (let i = 0; text.length < n; i++) text += `${letters.slice(i % 20, (i % 20) + 2 + (i % 3))}${alphabet[i % alphabet.length]}`;
  return text.slice(0, n);
};
/** A header value of 300 KiB: quotes, a backslash, a %, what the shell reads, a tab and bytes past ASCII (é is the byte e9). */
const HEADER_VALUE = varied(300 * KIB, ` "\\'$\`%;=é\tÿ-`);
const QUERY = varied(300 * KIB, "-._~!$&'()*+,;=:@/%");
/** The secret header's value, as the user sets its variable: a quote and a backslash in it. */
const TOKEN = 'Bearer a"b\\c-0123456789';
/** A body with a long run: written by commands, on curl's standard input. */
const BODY = `{"ownerId":42,"pad":"${'x'.repeat(5000)}"}`;

const sh = (script: string, env: Record<string, string>) => new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
  execFile('sh', [script], { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 60_000, maxBuffer: 16 << 20 }, (e, stdout, stderr) =>
    resolve({ code: e ? (typeof e.code === 'number' ? e.code : -1) : 0, stdout, stderr }));
});

/** A recorded request to the raw target with these fields, answered with a member the interface does
 *  not name (a failed check, so replay.sh sends it again). */
function recorded(method: string, path: string, fields: readonly (readonly [string, string])[], body?: string): Exchange {
  const all: [string, string][] = [['Host', new URL(target.url).host], ...fields.map(([k, v]): [string, string] => [k, v]), ...(body !== undefined ? [['Content-Length', String(Buffer.byteLength(body))] as [string, string]] : [])];
  return {
    id: 'proxy.1', title: `${method} ${path}`, origin: { source: 'proxy', vouched: false },
    request: { method, url: `${target.url}${path}`, headers: exchangeHeaders(all), rawHeaders: all.flat(), ...(body !== undefined ? { body } : {}) },
    response: recordedResponse(200, { 'content-type': 'application/json; charset=utf-8' }, Buffer.from(JSON.stringify({ ...record, unknownMember: 1 }))),
    startedAt: new Date(0).toISOString(), durationMs: 1,
  };
}

async function reportOf(ex: Exchange): Promise<Report> {
  const run = await runConformance({ baseUrl: target.url, recorded: [ex], mode: 'traffic', checks: CATALOGUE, namespaces: DEFAULT_NAMESPACES, values: {}, extraHeaders: {}, timeoutMs: 10_000, maxBodyBytes: 1 << 20, probes: false });
  return buildReport(run, { redactor: new Redactor({ showPersonalData: false, secrets: [] }), harness: { name: 'h', version: '0' }, targetDescription: 't', configuration: { timeoutMs: 10_000 } });
}

/** Runs the report's replay.sh; the requests the target got from it. */
async function replayed(report: Report, env: Record<string, string> = {}) {
  const script = join(mkdtempSync(join(tmpdir(), 'replay-long-arguments-')), 'replay.sh');
  writeFileSync(script, replayScript(report));
  const before = target.requests.length;
  const r = await sh(script, env);
  return { ...r, requests: target.requests.slice(before) };
}

/** Each failed check's line says the replay got an answer: one request sent for each. */
function expectReplayed(stdout: string, sent: number): void {
  const lines = stdout.trimEnd().split('\n');
  expect(lines.length).toBeGreaterThan(0);
  for (const line of lines) expect(line).toMatch(/^[A-Z-]+ \((?:MUST|SHOULD)\) proxy\.1: 200 sha256 [0-9a-f]{64} \(the run got 200 [0-9a-f]{64}\)$/);
  expect(sent).toBe(lines.length);
}

const latin1 = (s: string | undefined) => (s === undefined ? undefined : Buffer.from(s, 'latin1').toString('hex'));

describe('replay.sh of a recorded request past the system\'s limit on one argument', () => {
  it('sends a header value of 300 KiB of varied characters, with a secret header and a body beside it, byte for byte', async () => {
    const ex = recorded('POST', '/supportstateuser', [['X-Big', HEADER_VALUE], ['Authorization', 'Bearer recorded-0123456789'], ['Content-Type', 'application/json']], BODY);
    const { code, stdout, stderr, requests } = await replayed(await reportOf(ex), { HEADER_AUTHORIZATION: TOKEN });
    expect([code, stderr]).toEqual([0, '']);
    expectReplayed(stdout, requests.length);
    for (const got of requests) {
      expect(got.line).toBe('POST /supportstateuser HTTP/1.1');
      // Each field as recorded, in order (the Authorization the one the user set); nothing else.
      expect(got.fields.map(([k, v]) => [k, latin1(v)])).toEqual([['Host', latin1(new URL(target.url).host)], ['X-Big', latin1(HEADER_VALUE)], ['Authorization', latin1(TOKEN)], ['Content-Type', latin1('application/json')], ['Content-Length', latin1(String(BODY.length))]]);
      expect(got.body.toString()).toBe(BODY);
    }
  }, 60_000);

  it('sends a URL of 300 KiB of varied characters byte for byte', async () => {
    const ex = recorded('GET', `/supportstateuser?q=${QUERY}`, [['Accept', 'application/json']]);
    const { code, stdout, stderr, requests } = await replayed(await reportOf(ex));
    expect([code, stderr]).toEqual([0, '']);
    expectReplayed(stdout, requests.length);
    for (const got of requests) expect(latin1(got.line)).toBe(latin1(`GET /supportstateuser?q=${QUERY} HTTP/1.1`));
  }, 60_000);

  it('sends a header value of 20 KiB with a byte past ASCII every other character (a word of 10 240 commands, which dash ended on) byte for byte', async () => {
    const value = 'aé'.repeat(10 * KIB);
    const { code, stdout, stderr, requests } = await replayed(await reportOf(recorded('GET', '/supportstateuser', [['X-Name', value]])));
    expect([code, stderr]).toEqual([0, '']);
    expectReplayed(stdout, requests.length);
    for (const got of requests) expect(latin1(got.fields.find(([k]) => k === 'X-Name')?.[1])).toBe(latin1(value));
  }, 60_000);

  it('sends a body of 300 KiB of varied characters (no run written by a command) byte for byte', async () => {
    const body = JSON.stringify({ ownerId: 42, note: varied(300 * KIB, ' "\'$`%;=-') });
    const { code, stdout, stderr, requests } = await replayed(await reportOf(recorded('POST', '/supportstateuser', [['Content-Type', 'application/json']], body)));
    expect([code, stderr]).toEqual([0, '']);
    expectReplayed(stdout, requests.length);
    for (const got of requests) expect(got.body.toString()).toBe(body);
  }, 60_000);

  it('sends a body of 120 000 control characters each between plain ones (each once a command of its own: dash ended on 240 000 of them) byte for byte', async () => {
    const body = 'a\u0001'.repeat(120_000);
    const { code, stdout, stderr, requests } = await replayed(await reportOf(recorded('POST', '/supportstateuser', [['Content-Type', 'application/octet-stream']], body)));
    expect([code, stderr]).toEqual([0, '']);
    expectReplayed(stdout, requests.length);
    for (const got of requests) expect(got.body.equals(Buffer.from(body))).toBe(true);
  }, 60_000);

  it('does not send a request with a body and a URL of 300 KiB (curl reads a query from a file only as a GET\'s), saying so in one line', async () => {
    const ex = recorded('POST', `/supportstateuser?q=${QUERY}`, [['Content-Type', 'application/json']], BODY);
    const { code, stdout, stderr, requests } = await replayed(await reportOf(ex));
    expect([code, stderr, requests]).toEqual([0, '', []]);
    const lines = stdout.trimEnd().split('\n');
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).toMatch(/^[A-Z-]+ \((?:MUST|SHOULD)\) proxy\.1: not replayed: its method, URL or request target is too long for the command line of curl \(Linux takes 128 KiB in one argument\), and is no query curl reads from a file \(-G, for a request without a body\)$/);
  }, 60_000);
});

describe('the reports of a recorded request with a URL and a header value of varied characters', () => {
  it('of a mebibyte each: cut the URL, the title and the header line at MAX_SHOWN_LINE, saying how long each was; replay.sh says in one line that curl sends no head so long', async () => {
    const value = lettered(1024 * KIB, ' \\\'$`%;=é');
    // Words of letters: a text of more than 50 000 JSON values (numbers, words from t, f, n) is
    // withheld whole (Redactor.text), in its curl too, which replay.sh then does not run.
    const query = lettered(1024 * KIB, "._~!$&'()*+;=@/%");
    const path = `/supportstateuser?q=${query}`;
    const report = await reportOf(recorded('GET', path, [['X-Big', value]]));
    const [ex] = report.exchanges;
    const cutAt = (text: string, length: number) => {
      expect(text.length).toBeLessThan(MAX_SHOWN_LINE + 100);
      expect(text).toMatch(new RegExp(`… \\(${length} characters; the rest not shown\\)$`));
    };
    cutAt(ex!.url, `${target.url}${path}`.length);
    cutAt(ex!.title, `GET ${path}`.length);
    const summary = summaryOf(report).exchanges[0]!;
    expect([summary.url, summary.title]).toEqual([ex!.url, ex!.title]);
    const lines = ex!.request.split('\n');
    cutAt(lines[0]!, `${target.url}${path}`.length);
    expect(lines[0]!.startsWith(`GET ${target.url}/supportstateuser?q=`)).toBe(true);
    cutAt(lines.find((l) => l.startsWith('X-Big: '))!, value.length);
    for (const line of lines) expect(line.length).toBeLessThan(MAX_SHOWN_LINE + 100);
    // A head of 2 MiB: more than curl sends.
    const { code, stdout, stderr, requests } = await replayed(report);
    expect([code, stderr, requests]).toEqual([0, '', []]);
    for (const line of stdout.trimEnd().split('\n')) expect(line).toMatch(/^[A-Z-]+ \((?:MUST|SHOULD)\) proxy\.1: not replayed: its request head is more than 1 MiB, which curl does not send \(it says "Out of memory"\)$/);
  }, 120_000);

  it('of 400 KiB each: replay.sh sends both whole, the fields and the query each read from a file', async () => {
    // Words of letters: not withheld (above).
    const value = lettered(400 * KIB, ' \\\'$`%;=é');
    const path = `/supportstateuser?q=${lettered(400 * KIB, "._~!$&'()*+;=@/%")}`;
    const { code, stdout, stderr, requests } = await replayed(await reportOf(recorded('GET', path, [['X-Big', value]])));
    expect([code, stderr]).toEqual([0, '']);
    expectReplayed(stdout, requests.length);
    for (const got of requests) {
      expect(latin1(got.line)).toBe(latin1(`GET ${path} HTTP/1.1`));
      expect(latin1(got.fields.find(([k]) => k === 'X-Big')?.[1])).toBe(latin1(value));
    }
  }, 120_000);
});

describe('the reports of a recorded exchange with a method of 270 000 characters and a reason phrase of a mebibyte', () => {
  it('cut both at MAX_SHOWN_LINE in the texts and summary.json, saying how long each was; replay.sh says in one line that curl takes no such method', async () => {
    const method = 'PROPFINDX'.repeat(30_000);
    // Words of letters (no t, f or n first, no digit): a text of more than 50 000 JSON values is withheld whole.
    const reason = 'Okay Good '.repeat(104_858).slice(0, 1024 * KIB);
    const ex = { ...recorded(method, '/supportstateuser', []) };
    const report = await reportOf({ ...ex, response: recordedResponse(200, { 'content-type': 'application/json; charset=utf-8' }, Buffer.from(JSON.stringify({ ...record, unknownMember: 1 })), reason) });
    const [shown] = report.exchanges;
    const cut = (length: number) => new RegExp(`… \\(${length} characters; the rest not shown\\)$`);
    const requestLine = shown!.request.split('\n')[0]!;
    const statusLine = shown!.response.split('\n')[0]!;
    // (One word: a cut leaves its last word out, as ever, so no part of this one is shown.)
    expect(requestLine.endsWith(` ${target.url}/supportstateuser`)).toBe(true);
    expect(requestLine.length).toBeLessThan(MAX_SHOWN_LINE + 100);
    expect(requestLine.slice(0, requestLine.indexOf(` ${target.url}`))).toMatch(cut(method.length));
    expect(statusLine.length).toBeLessThan(MAX_SHOWN_LINE + 100);
    expect(statusLine).toMatch(cut(reason.length));
    const summary = summaryOf(report).exchanges[0]!;
    expect(summary.method.length).toBeLessThan(MAX_SHOWN_LINE + 100);
    expect(summary.method).toMatch(cut(method.length));
    const { code, stdout, stderr, requests } = await replayed(report);
    expect([code, stderr, requests]).toEqual([0, '', []]);
    for (const line of stdout.trimEnd().split('\n')) expect(line).toMatch(/^[A-Z-]+ \((?:MUST|SHOULD)\) proxy\.1: not replayed: its method, URL or request target is too long for the command line of curl/);
  }, 60_000);
});
