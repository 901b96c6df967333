// An exchange is shown with its header fields as they came (names as spelled, in order, repeats
// apart) and the answer's reason phrase, from every source that has them: the harness's own sender,
// a HAR recording, the proxy, the judging reference's clients. A secret header stays masked in any
// spelling of its name, and in each of its repeats.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startJudgingReference } from '../lib/cli/judging-reference.js';
import { DEFAULT_NAMESPACES } from '../lib/contract/namespaces.js';
import { runConformance } from '../lib/engine/run.js';
import { recordedResponse, type Exchange } from '../lib/http/exchange.js';
import { published } from '../lib/reporting/boundary.js';
import { requestText, responseText } from '../lib/reporting/exchange-text.js';
import { Redactor } from '../lib/reporting/redact.js';
import { exchangeOfEntry } from '../lib/traffic/har.js';
import { judgeable } from '../lib/traffic/proxy.js';
import { runCli } from './helpers/cli.js';
import { files, readable } from './helpers/outputs.js';
import { proxiedRawTarget, rawExchange, startRawTarget, type RawTarget } from './helpers/raw-target.js';

const work = mkdtempSync(join(tmpdir(), 'evidence-raw-headers-'));
/** Secret values a target sends under secret header names spelled otherwise than the usual. */
const SECRETS = ['rawhdr-cookie-one-7Qz2', 'rawhdr-cookie-two-9Kp4', 'rawhdr-bearer-3Vx8'];
const BODY = '{}';
/** An answer with a repeated Content-Type, mixed-case names, a repeated Set-Cookie, an AUTHORIZATION
 *  and a reason phrase of its own. */
const FIELDS = [
  'Content-Type: application/json', 'X-Request-ID: Abc', `Set-Cookie: s=${SECRETS[0]}; Path=/`, 'content-type: application/json; charset=utf-8',
  `AUTHORIZATION: Bearer ${SECRETS[2]}`, `set-COOKIE: t=${SECRETS[1]}`, `Content-Length: ${BODY.length}`,
];
const ANSWER = `HTTP/1.1 200 Fine By Me\r\n${FIELDS.join('\r\n')}\r\n\r\n${BODY}`;

/** The head of a shown answer: its status line and header lines, the values of secret ones masked. */
const headOf = (shown: string) => shown.slice(0, shown.indexOf('\n\n')).split('\n');
const masked = (line: string) => line.replace(/: .*/, ': MASKED');
/** What a shown head must be: the fields as sent, the secret ones' values masked, never their text. */
const SECRET_NAMES = /^(set-cookie|authorization|cookie):/i;
const expectedHead = (status: string, fields: readonly string[]) => [status, ...fields.map((f) => (SECRET_NAMES.test(f) ? masked(f) : f))];
const asShown = (head: string[]) => head.map((l) => (SECRET_NAMES.test(l) ? masked(l) : l));

/** What every report shows of an exchange (the boundary's pass included). */
const shown = (ex: Exchange) => {
  const scope = new Redactor({ showPersonalData: false, secrets: [] }).scope();
  scope.learnExchange(ex);
  return published({ request: requestText(ex, scope), response: responseText(ex, scope) }, scope);
};
const noSecret = (text: string) => { for (const s of SECRETS) expect(text).not.toContain(s); };

describe('a run against a target answering with repeated and mixed-case fields and a reason phrase of its own', () => {
  let target: RawTarget;
  beforeAll(async () => { target = await startRawTarget(() => ANSWER); });
  afterAll(async () => { await target.close(); });

  it('exchanges.json and the Allure attachments show the fields as sent, in order, repeats apart, and the reason; no secret in any output', async () => {
    const dir = join(work, 'run');
    const r = await runCli(['--base-url', target.url, '--report-dir', dir, '--quiet', '--reports', 'summary,allure']);
    expect(r.code, r.stderr).toBeLessThan(2);
    const exchanges = JSON.parse(readFileSync(join(dir, 'exchanges.json'), 'utf8')) as { id: string; response: string }[];
    expect(exchanges.length).toBeGreaterThan(0);
    for (const e of exchanges) {
      const head = headOf(e.response);
      expect(asShown(head), e.id).toEqual(expectedHead('HTTP 200 Fine By Me', FIELDS));
      // Each secret value masked, the marker in its place, whatever the name's case.
      for (const l of head.filter((x) => SECRET_NAMES.test(x))) expect(l).toMatch(/^[A-Za-z-]+: «/);
    }
    const attachments = files(join(dir, 'allure-results')).filter((f) => f.endsWith('-attachment.txt')).map((f) => readFileSync(f, 'utf8'));
    expect(attachments.some((a) => a.includes(`HTTP 200 Fine By Me\nContent-Type: application/json\nX-Request-ID: Abc\nSet-Cookie: «`))).toBe(true);
    for (const f of files(dir)) noSecret(readable(f));
  }, 180_000);
});

describe('a HAR entry with repeated and mixed-case headers and a status text', () => {
  const entry = {
    request: {
      method: 'POST', url: 'http://svc.test/supportstateuser',
      headers: [{ name: 'Content-Type', value: 'application/json' }, { name: 'X-Trace', value: 'one' }, { name: 'x-trace', value: 'two' }, { name: 'AUTHORIZATION', value: `Bearer ${SECRETS[2]}` }, { name: ':authority', value: 'svc.test' }],
      postData: { text: '{}' },
    },
    response: {
      status: 200, statusText: 'Fine By Me',
      headers: FIELDS.map((f) => ({ name: f.slice(0, f.indexOf(':')), value: f.slice(f.indexOf(':') + 2) })),
      content: { text: BODY },
    },
  };

  it('shows the request\'s and the answer\'s headers as recorded (pseudo-headers aside) and the status text, each secret masked', () => {
    const s = shown(exchangeOfEntry(entry, 0, 1 << 20));
    expect(asShown(headOf(s.response))).toEqual(expectedHead('HTTP 200 Fine By Me', FIELDS));
    expect(asShown(headOf(s.request))).toEqual(expectedHead('POST http://svc.test/supportstateuser', ['Content-Type: application/json', 'X-Trace: one', 'x-trace: two', 'AUTHORIZATION: x']));
    noSecret(JSON.stringify(s));
  });

  it('a CLI run of the recording writes them so in exchanges.json', async () => {
    const file = join(work, 'entry.har');
    writeFileSync(file, JSON.stringify({ log: { version: '1.2', creator: { name: 't', version: '1' }, entries: [{ startedDateTime: '2026-01-01T00:00:00.000Z', time: 1, ...entry }] } }));
    const dir = join(work, 'har');
    const r = await runCli(['--har', file, '--report-dir', dir, '--quiet', '--reports', 'summary']);
    expect(r.code, r.stderr).toBeLessThan(2);
    const [ex] = JSON.parse(readFileSync(join(dir, 'exchanges.json'), 'utf8')) as { response: string }[];
    expect(asShown(headOf(ex!.response))).toEqual(expectedHead('HTTP 200 Fine By Me', FIELDS));
    for (const f of files(dir)) noSecret(readable(f));
  }, 120_000);
});

describe('the proxy, between a raw client and a raw target', () => {
  const setup = proxiedRawTarget(() => ANSWER);

  it('shows the request as forwarded and the answer as received: fields as spelled, in order, repeats apart, the reason; each secret masked', async () => {
    const before = setup.seen.length;
    const sent = ['Host: x', 'X-Trace: one', 'x-TRACE: two', `authorization: Bearer ${SECRETS[2]}`, 'Content-Length: 2', 'Connection: close'];
    expect(await rawExchange(setup.proxy.url, `POST /supportstateuser HTTP/1.1\r\n${sent.join('\r\n')}\r\n\r\n{}`)).toMatch(/^HTTP\/1\.1 200 Fine By Me\r\n/);
    const s = shown(judgeable(setup.seen[before]!, 1 << 20));
    expect(asShown(headOf(s.response))).toEqual(expectedHead('HTTP 200 Fine By Me', FIELDS));
    // As forwarded: Host names the target, the hop-by-hop Connection is the proxy's own.
    const host = new URL(setup.target.url).host;
    expect(asShown(headOf(s.request))).toEqual(expectedHead(`POST ${setup.target.url}/supportstateuser`, [`Host: ${host}`, 'X-Trace: one', 'x-TRACE: two', 'authorization: x', 'Content-Length: 2']));
    noSecret(JSON.stringify(s));
  });
});

describe('the judging reference, judging a raw client', () => {
  it('exchanges.json shows the client\'s request with its fields as sent, in order, repeats apart, each secret masked', async () => {
    const dir = mkdtempSync(join(work, 'judging-'));
    const judging = await startJudgingReference({ reportDir: dir, reports: new Set(['summary']), print: () => undefined });
    try {
      // No Content-Type: REQ-JSON-CONTENT-TYPE fails, so the exchange is kept for the report.
      const sent = ['HOST: judging.test', 'X-Trace: one', 'x-TRACE: two', `Authorization: Bearer ${SECRETS[2]}`, `cookie: a=${SECRETS[0]}`, `COOKIE: b=${SECRETS[1]}`, 'connection: close', 'Content-Length: 2'];
      await rawExchange(judging.url, `POST /supportstateuser HTTP/1.1\r\n${sent.join('\r\n')}\r\n\r\n{}`);
      const w = await judging.report();
      expect(w.problems).toEqual([]);
    } finally {
      await judging.close();
    }
    const exchanges = JSON.parse(readFileSync(join(dir, 'exchanges.json'), 'utf8')) as { request: string }[];
    const heads = exchanges.map((e) => asShown(headOf(e.request)).slice(1));
    expect(heads).toContainEqual(['HOST: judging.test', 'X-Trace: one', 'x-TRACE: two', 'Authorization: MASKED', 'cookie: MASKED', 'COOKIE: MASKED', 'connection: close', 'Content-Length: 2']);
    for (const f of files(dir)) noSecret(readable(f));
  });
});

describe('an exchange judged on a worker (--jobs) and kept', () => {
  it('is shown with the fields and reason phrase it came with, which the worker\'s batch leaves out', async () => {
    // A body of its own memory past 64 KiB is moved to the worker, which returns the exchange it keeps.
    const body = Buffer.alloc(70 * 1024, 0x20);
    body.write('{"a":', 0);
    const raw = FIELDS.flatMap((f) => [Buffer.from(f.slice(0, f.indexOf(':')), 'latin1'), Buffer.from(f.slice(f.indexOf(':') + 2), 'latin1')]);
    const ex: Exchange = {
      id: 'har.1', title: 'login', origin: { source: 'har', vouched: false }, startedAt: '', durationMs: 0,
      request: { method: 'POST', url: 'http://svc.test/supportstateuser', headers: { 'content-type': 'application/json' }, rawHeaders: [{ name: 'Content-TYPE', value: 'application/json' }], body: '{"userName":"jdoe.support"}' },
      response: recordedResponse(200, { 'content-type': 'application/json' }, body, 'Fine By Me', raw),
    };
    const result = await runConformance({
      baseUrl: 'http://svc.test', recorded: [ex], mode: 'traffic', probes: false, namespaces: DEFAULT_NAMESPACES, values: {}, extraHeaders: {},
      timeoutMs: 1000, maxBodyBytes: 1 << 20, jobs: 1, judgedBeforeWorkers: 0,
      judgeWorker: { program: 'cli/judge-worker', data: () => ({ showPersonalData: false, secrets: [], secretHeaders: [], fingerprints: new Redactor({ showPersonalData: false, secrets: [] }).shareFingerprints() }) },
    });
    const kept = result.exchanges.find((e) => e.id === 'har.1')!;
    const s = shown(kept);
    expect(asShown(headOf(s.response))).toEqual(expectedHead('HTTP 200 Fine By Me', FIELDS));
    expect(headOf(s.request)[1]).toBe('Content-TYPE: application/json');
    noSecret(JSON.stringify(s));
  }, 60_000);
});
