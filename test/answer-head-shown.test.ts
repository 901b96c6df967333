// An answer whose body is not kept (a HAR holding no body as sent, or a body past the cap) keeps its
// status line and header fields (Exchange.answerHead), which the checks of the head judge. The
// reports showed such an exchange as "(no response: …)" beside a finding about its headers, and an
// answer past the cap dropped its head altogether (those checks skipped it; replay.sh said the run
// got "no answer"). Now the head is shown as recorded, a secret header of it masked as a response's
// is, the body said to be missing and why; replay.sh compares a replay's status with the run's.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Exchange } from '../lib/http/exchange.js';
import { ACCEPT_ENCODING } from '../lib/http/content-coding.js';
import { BodySlots, createDispatcher, RequestBudget, send } from '../lib/http/send.js';
import { responseText } from '../lib/reporting/exchange-text.js';
import { Redactor } from '../lib/reporting/redact.js';
import { runCli, WITHOUT_HTML } from './helpers/cli.js';

const MIB = 1024 * 1024;
const COOKIE = 'Sid7hQx2KpLmW9zRt4Vb';
const TOKEN = 'Tok3nNamedByHeaderQ8w';
/** The head every answer here has: no POST in Allow (OPTIONS-ALLOWS-POST fails on it), a cookie, a
 *  header echoing the cookie's value, and one the run names secret with --header. */
const FIELDS: [string, string][] = [['Content-Type', 'text/plain'], ['Allow', 'GET, OPTIONS'], ['Set-Cookie', `sid=${COOKIE}; Path=/; HttpOnly`], ['X-Trace', `trace ${COOKIE}`], ['X-Session-Token', TOKEN]];
/** FIELDS as every report shows them. */
const SHOWN_HEAD = 'Content-Type: text/plain\nAllow: GET, OPTIONS\nSet-Cookie: «secret header: string, 42 chars»\nX-Trace: trace «secret header: string, 20 chars»\nX-Session-Token: «secret header: string, 21 chars»';

/** Every file under `dir`, read as text. */
const filesUnder = (dir: string): [string, string][] => readdirSync(dir).flatMap((name) => {
  const path = join(dir, name);
  return statSync(path).isDirectory() ? filesUnder(path) : [[path, readFileSync(path, 'utf8')] as [string, string]];
});

const sh = (script: string) => new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
  execFile('sh', [script], { env: { PATH: process.env.PATH ?? '', HEADER_X_SESSION_TOKEN: 'configured-value-1234' }, timeout: 60_000 }, (e, stdout, stderr) =>
    resolve({ code: e ? (typeof e.code === 'number' ? e.code : -1) : 0, stdout, stderr }));
});

interface Summary { checks: { id: string; status: string; evidence: { exchange: string }[] }[]; exchanges: { id: string; status?: number; answerPastCap?: true }[] }
interface Shown { id: string; response: string }

describe('a HAR answer whose body is not kept', () => {
  it('is shown with its status line and header fields as recorded, the secret ones masked, and why its body is missing (no text, a lone surrogate, past the cap)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'answer-head-shown-'));
    const entry = (text?: string) => ({
      startedDateTime: '2026-11-27T09:00:00.000Z', time: 1,
      request: { method: 'OPTIONS', url: 'http://127.0.0.1:9/supportstateuser', httpVersion: 'HTTP/1.1', headers: [], queryString: [], cookies: [], headersSize: -1, bodySize: 0 },
      response: { status: 200, statusText: 'OK', httpVersion: 'HTTP/1.1', headers: FIELDS.map(([name, value]) => ({ name, value })), cookies: [], content: { size: -1, mimeType: 'text/plain', ...(text === undefined ? {} : { text }) }, redirectURL: '', headersSize: -1, bodySize: -1 },
      cache: {}, timings: { send: 0, wait: 1, receive: 0 },
    });
    const har = join(dir, 'recorded.har');
    writeFileSync(har, JSON.stringify({ log: { version: '1.2', creator: { name: 'test', version: '1' }, entries: [entry(), entry('ok\ud800'), entry('x'.repeat(1.5 * MIB))] } }));
    const out = join(dir, 'out');
    const r = await runCli([...WITHOUT_HTML, '--har', har, '--header', 'X-Session-Token: configured-value-1234', '--max-body-mib', '1', '--report-dir', out, '--quiet']);
    expect(r.code, r.stderr).toBe(0);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as Summary;
    const allows = summary.checks.find((c) => c.id === 'OPTIONS-ALLOWS-POST')!;
    expect([allows.status, allows.evidence.map((e) => e.exchange)]).toEqual(['failed', ['har.1', 'har.2', 'har.3']]);
    expect(summary.exchanges.map((e) => [e.id, e.status, e.answerPastCap])).toEqual([['har.1', 200, undefined], ['har.2', 200, undefined], ['har.3', 200, true]]);
    const shown = JSON.parse(readFileSync(join(out, 'exchanges.json'), 'utf8')) as Shown[];
    expect(shown.map((e) => e.response)).toEqual([
      `HTTP 200 OK\n${SHOWN_HEAD}\n\n(the body is not recorded: no response body recorded in the HAR)`,
      `HTTP 200 OK\n${SHOWN_HEAD}\n\n(the body is not recorded: the response body recorded holds a lone surrogate at character 2, which names no bytes: what was answered is not known)`,
      `HTTP 200 OK\n${SHOWN_HEAD}\n\n(the body was not read past the cap: response body exceeded the 1 MiB cap)`,
    ]);
    const files = filesUnder(out);
    // Allure's attachments show the head as exchanges.json does; no output holds a secret.
    expect(files.some(([path, text]) => path.includes('allure-results') && text.includes(`HTTP 200 OK\n${SHOWN_HEAD}`))).toBe(true);
    expect(files.filter(([, text]) => text.includes(COOKIE) || text.includes(TOKEN)).map(([path]) => path)).toEqual([]);
  }, 60_000);

  it('teaches the redactor its secret headers, as a response does: a value echoed in another header is masked', () => {
    const ex: Exchange = {
      id: 'har.1', title: 'x', origin: { source: 'har', vouched: false }, startedAt: '', durationMs: 0,
      request: { method: 'OPTIONS', url: 'http://127.0.0.1:9/supportstateuser', headers: {} },
      answerHead: { status: 200, headers: Object.fromEntries(FIELDS.map(([k, v]) => [k.toLowerCase(), v])), reason: 'OK' },
      error: { kind: 'not-recorded', message: 'no response body recorded in the HAR' },
    };
    const scope = new Redactor({ showPersonalData: false, secrets: [] }).scope();
    scope.learnExchange(ex);
    expect(responseText(ex, scope)).toContain('\nx-trace: trace «secret header: string, 20 chars»\n');
    const run = new Redactor({ showPersonalData: false, secrets: [] });
    run.learnFingerprints(ex);
    expect(run.text(`echoed ${COOKIE}`)).not.toContain(COOKIE);
  });
});

describe('a live answer whose body goes past the cap', () => {
  let server: Server;
  let base = '';
  /** What the target answers next: a body past the 1 MiB cap as sent, or a gzip body past it once decoded. */
  let gzipped = false;
  beforeAll(async () => {
    server = createServer((_req, res) => {
      res.writeHead(200, 'OK', [...FIELDS, ...(gzipped ? [['Content-Encoding', 'gzip']] : [])].flat());
      res.end(gzipped ? gzipSync(Buffer.alloc(2 * MIB)) : Buffer.alloc(1.5 * MIB, 'a'));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  async function sendOne(acceptEncoding?: string): Promise<Exchange> {
    const options = { timeoutMs: 30_000, maxBodyBytes: MIB };
    const dispatcher = createDispatcher(options);
    try {
      return await send({ id: 'options', title: 'x', origin: { source: 'probe', vouched: true }, method: 'OPTIONS', path: '/supportstateuser', headers: acceptEncoding ? { 'accept-encoding': acceptEncoding } : {} },
        base, { dispatcher, options, budget: new RequestBudget(), slots: new BodySlots() });
    } finally {
      await dispatcher.close();
    }
  }

  it('keeps its status line and header fields, and no body, past the cap as received and once decoded', async () => {
    gzipped = false;
    const raw = await sendOne();
    expect([raw.response, raw.error, raw.answerHead?.status, raw.answerHead?.reason, raw.answerHead?.headers['set-cookie']]).toEqual([undefined, { kind: 'too-large', message: 'response body exceeded the 1 MiB cap' }, 200, 'OK', `sid=${COOKIE}; Path=/; HttpOnly`]);
    expect(Object.keys(raw.answerHead!)).toEqual(['status', 'headers', 'reason', 'rawHeaders']);
    gzipped = true;
    const decoded = await sendOne(ACCEPT_ENCODING);
    expect([decoded.error, decoded.answerHead?.status, decoded.answerHead?.headers['content-encoding']]).toEqual([{ kind: 'too-large', message: 'response body exceeded the 1 MiB cap once decoded from gzip' }, 200, 'gzip']);
  });

  it('is judged by the checks of the head, shown with its head, and replay.sh compares the replay\'s status, saying the run\'s body and the replay\'s were past the cap', async () => {
    gzipped = false;
    const out = join(mkdtempSync(join(tmpdir(), 'answer-head-shown-')), 'out');
    const r = await runCli([...WITHOUT_HTML, '--base-url', base, '--header', 'X-Session-Token: configured-value-1234', '--max-body-mib', '1', '--report-dir', out, '--quiet']);
    expect(r.code, r.stderr).toBe(1);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as Summary;
    const allows = summary.checks.find((c) => c.id === 'OPTIONS-ALLOWS-POST')!;
    expect(allows.status).toBe('failed');
    const shown = (JSON.parse(readFileSync(join(out, 'exchanges.json'), 'utf8')) as Shown[]).find((e) => e.id === allows.evidence[0]!.exchange)!;
    // Node writes its own Date, Connection and the like after the fields given.
    expect(shown.response).toMatch(new RegExp(`^HTTP 200 OK\n${SHOWN_HEAD}\n[^]*\n\n\\(the body was not read past the cap: response body exceeded the 1 MiB cap\\)$`));
    expect(filesUnder(out).filter(([, text]) => text.includes(COOKIE) || text.includes(TOKEN)).map(([path]) => path)).toEqual([]);
    const replay = await sh(join(out, 'replay.sh'));
    expect(replay.code).toBe(0);
    expect(replay.stdout).toMatch(new RegExp(`^OPTIONS-ALLOWS-POST \\(SHOULD\\) ${shown.id.replace('.', '\\.')}: 200 sha256 [0-9a-f]{64} \\(its body past the body cap of ${MIB} bytes: the SHA-256 of its first ${MIB}; status as in the run, whose answer body was past the body cap too: no body to compare with\\)$`, 'm'));
  }, 60_000);
});
