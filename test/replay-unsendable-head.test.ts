// A recording (a HAR, which anyone may write) can hold what no HTTP request carries: a header value
// with CR, LF or NUL, a method or field name that is no token (RFC 9110 5.5, 5.6.2, 9.1). curl sends
// -X and -H as given, so replay.sh sent those bytes: a CR LF in a header value became further header
// lines, or a whole second request of the recording author's choosing, sent to the target by whoever
// ran replay.sh (an independent review reproduced both, through a header value and the method). Now
// no command is written for such a request, replay.sh says why in one line and sends nothing, and a
// valid request beside it is still replayed. The reports show such a field, and the request line,
// as one line: a line feed in a recorded header value showed as further fields, or a body, that no
// message held.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOGUE } from '../lib/checks/catalogue.js';
import { DEFAULT_NAMESPACES } from '../lib/contract/namespaces.js';
import { runConformance } from '../lib/engine/run.js';
import { exchangeHeaders, recordedResponse, type Exchange } from '../lib/http/exchange.js';
import { curlCommand, HEAD_UNSENDABLE, requestText, responseText } from '../lib/reporting/exchange-text.js';
import { Redactor } from '../lib/reporting/redact.js';
import { buildReport, type Report } from '../lib/reporting/report.js';
import { replayBounds, replayScript } from '../lib/reporting/replay-script.js';
import { startRawTarget, type RawTarget } from './helpers/raw-target.js';

const record = JSON.parse(readFileSync(new URL('../fixtures/reference/user-details.json', import.meta.url), 'utf8')) as Record<string, unknown>;
let target: RawTarget;
beforeAll(async () => { target = await startRawTarget(() => 'HTTP/1.1 200 OK\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: 2\r\n\r\n{}'); });
afterAll(async () => { await target.close(); });

const SMUGGLED = 'abc\r\nX-Injected: yes\r\nContent-Length: 0\r\n\r\nDELETE /smuggled HTTP/1.1\r\nHost: 127.0.0.1';
const WHY = 'not replayed: its method or a header field is none a request carries (a method or field name that is no token, or a field value holding CR, LF or NUL: RFC 9110 5.5, 5.6.2), which curl would send as further lines of the head: the recording does not say what was sent';

/** A recorded request to the raw target, answered with a member the interface does not name (a
 *  failed check, so replay.sh sends it again). */
function recorded(id: string, method: string, fields: readonly (readonly [string, string])[], response: readonly (readonly [string, string])[] = []): Exchange {
  const body = '{"ownerId":42}'; // nothing the reports mask: replay.sh sends it
  const all: [string, string][] = [['Host', new URL(target.url).host], ['Content-Type', 'application/json'], ...fields.map(([k, v]): [string, string] => [k, v]), ['Content-Length', String(body.length)]];
  const answer: [string, string][] = [['content-type', 'application/json; charset=utf-8'], ...response.map(([k, v]): [string, string] => [k, v])];
  return {
    id, title: `${method} /supportstateuser`, origin: { source: 'har', vouched: false },
    request: { method, url: `${target.url}/supportstateuser`, headers: exchangeHeaders(all), rawHeaders: all.flat(), body },
    response: { ...recordedResponse(200, exchangeHeaders(answer), Buffer.from(JSON.stringify({ ...record, unknownMember: 1 }))), rawHeaders: answer.flat() },
    startedAt: new Date(0).toISOString(), durationMs: 1,
  };
}

async function reportOf(exchanges: Exchange[]): Promise<Report> {
  const run = await runConformance({ baseUrl: target.url, recorded: exchanges, mode: 'traffic', checks: CATALOGUE, namespaces: DEFAULT_NAMESPACES, values: {}, extraHeaders: {}, timeoutMs: 10_000, maxBodyBytes: 1 << 20, probes: false });
  return buildReport(run, { redactor: new Redactor({ showPersonalData: false, secrets: [] }), harness: { name: 'h', version: '0' }, targetDescription: 't', configuration: { timeoutMs: 10_000 } });
}

const sh = (script: string) => new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
  execFile('sh', [script], { env: { PATH: process.env.PATH ?? '', REPLAY_MAX_TIME: '5' }, timeout: 60_000 }, (e, stdout, stderr) =>
    resolve({ code: e ? (typeof e.code === 'number' ? e.code : -1) : 0, stdout, stderr }));
});

/** Each made once the target listens (its URL is in the request). */
const UNSENDABLE: [string, () => Exchange][] = [
  ['a CR LF and a second request in a header value', () => recorded('har.1', 'POST', [['X-Trace', SMUGGLED]])],
  ['a line feed alone in a header value', () => recorded('har.2', 'POST', [['X-Trace', 'a\nX-Injected: yes']])],
  ['a carriage return alone in a header value', () => recorded('har.3', 'POST', [['X-Trace', 'a\rX-Injected: yes']])],
  ['a NUL in a header value', () => recorded('har.4', 'POST', [['X-Trace', 'a\u0000b']])],
  ['a field name holding a colon and a space', () => recorded('har.5', 'POST', [['X-Trace: 1\r\nX-Injected', 'yes']])],
  ['a request line and a second request in the method', () => recorded('har.6', 'DELETE /smuggled HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nPOST', [])],
  ['a method holding a space', () => recorded('har.7', 'PO ST', [])],
  ['a method holding a control character', () => recorded('har.8', 'PO\u0001ST', [])],
];

describe('a recorded request no HTTP request carries', () => {
  for (const [what, ex] of UNSENDABLE) {
    it(`${what}: no curl command, only the one-line marker`, () => {
      expect(curlCommand(ex(), new Redactor({ showPersonalData: false, secrets: [] }), replayBounds({ configuration: {} }))).toBe(HEAD_UNSENDABLE);
    });
  }

  /** replay.sh of a report of `exchanges` (each check's first example is replayed), run by sh. */
  async function replayOf(exchanges: Exchange[]) {
    const script = join(mkdtempSync(join(tmpdir(), 'replay-unsendable-')), 'replay.sh');
    writeFileSync(script, replayScript(await reportOf(exchanges)));
    const before = target.requests.length;
    const r = await sh(script);
    return { ...r, lines: r.stdout.trimEnd().split('\n'), got: target.requests.slice(before) };
  }

  for (const [what, ex] of UNSENDABLE) {
    it(`${what}: replay.sh sends nothing, saying why in one line for each check it failed`, async () => {
      const { id } = ex();
      const r = await replayOf([ex()]);
      expect([r.code, r.stderr, r.got]).toEqual([0, '', []]);
      expect(r.lines.length).toBeGreaterThan(0);
      for (const l of r.lines) expect(l).toMatch(new RegExp(`^[A-Z0-9-]+ \\((?:MUST|SHOULD)\\) ${id.replace('.', '\\.')}: ${WHY.replace(/[().]/g, '\\$&')}$`));
    }, 60_000);
  }

  it('a method of shell-special token characters and a header of control characters but CR, LF and NUL are replayed as recorded', async () => {
    const r = await replayOf([recorded('har.9', "PO'$`|ST", [['X-Trace', 'a\u001b[31mb\u0085c\td']])]);
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(r.lines.length).toBeGreaterThan(0);
    for (const l of r.lines) expect(l).toMatch(/ har\.9: 200 /);
    expect(r.got.length).toBe(r.lines.length);
    expect(r.got.map((q) => q.line)).toEqual(r.got.map(() => `PO'$\`|ST /supportstateuser HTTP/1.1`));
    expect(r.got.map((q) => q.headers['x-trace'])).toEqual(r.got.map(() => 'a\u001b[31mb\u0085c\td'));
  }, 60_000);
});

describe('the reports show a recorded header field and the request line as one line each', () => {
  const redact = new Redactor({ showPersonalData: false, secrets: [] });
  const ex = () => recorded('har.10', 'DELETE /x HTTP/1.1\r\nHost: h\r\n\r\nPOST', [['X-Trace', SMUGGLED]], [['X-Note', 'v\n\n{"userId": 42}']]);

  it('a request: its line, then one line a field, then the body', () => {
    const lines = requestText(ex(), redact).split('\n');
    expect(lines).toEqual([
      'DELETE /x HTTP/1.1\\r\\nHost: h\\r\\n\\r\\nPOST http://' + new URL(target.url).host + '/supportstateuser',
      `Host: ${new URL(target.url).host}`,
      'Content-Type: application/json',
      'X-Trace: abc\\r\\nX-Injected: yes\\r\\nContent-Length: 0\\r\\n\\r\\nDELETE /smuggled HTTP/1.1\\r\\nHost: 127.0.0.1',
      'Content-Length: 14',
      '',
      '{"ownerId":42}',
    ]);
  });

  it('a response: its status line, one line a field, a blank line, then the body judged', () => {
    const lines = responseText(ex(), redact).split('\n');
    expect(lines.slice(0, 4)).toEqual(['HTTP 200', 'content-type: application/json; charset=utf-8', 'X-Note: v\\n\\n{"userId": 42}', '']);
    expect(lines.slice(4).join('\n')).toContain('"unknownMember":1');
  });
});
