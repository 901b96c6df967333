// A replay (a report's curl command, replay.sh) sends the request the proxy recorded, byte for byte,
// each run against a raw socket that logs what arrives. A header value of bytes past ASCII (held as
// Node read it, Latin-1) went as the UTF-8 of that reading: other bytes. OPTIONS * went as OPTIONS /.
// A secret header whose name holds other token characters (' $ ` ~) was written, not asked for. A
// HAR form recorded as its parameters alone was sent URL-encoded here, saying nothing. A target a
// client sent the judging reference in absolute form was replayed to the host it names. A secret
// X-Key-2 and the second of two X-Key fields were both asked for as X_KEY_2: one sent the other's
// value. A HAR text of another length than its recorded Content-Length was sent with that length: a
// cut body, or one the target waited for.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startJudgingReference } from '../lib/cli/judging-reference.js';
import { replayed } from '../lib/engine/differential.js';
import type { Exchange } from '../lib/http/exchange.js';
import { BODY_REBUILT, curlCommand, requestText } from '../lib/reporting/exchange-text.js';
import { Redactor } from '../lib/reporting/redact.js';
import type { Report } from '../lib/reporting/report.js';
import { replayBounds, replayScript } from '../lib/reporting/replay-script.js';
import { exchangeOfEntry } from '../lib/traffic/har.js';
import { judgeable } from '../lib/traffic/proxy.js';
import { proxiedRawTarget, rawExchange, type ParsedRequest } from './helpers/raw-target.js';

const BOUNDS = replayBounds({ configuration: {} });

const sh = (args: string[], env: Record<string, string> = {}) => new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
  execFile('sh', args, { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 60_000 }, (e, stdout, stderr) =>
    resolve({ code: e ? (typeof e.code === 'number' ? e.code : -1) : 0, stdout, stderr }));
});

const setup = proxiedRawTarget(() => 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}');

/** What a request the proxy forwarded is, as replayed: its line, fields (less the Connection its hop made: curl makes its own), body. */
const asReceived = (r: ParsedRequest) => ({ line: r.line, fields: r.fields.filter(([k]) => k.toLowerCase() !== 'connection'), body: r.body.toString('latin1') });

/** Sends `head` (bytes) through the proxy; gives the exchange recorded and what the target got. */
async function recorded(head: Buffer): Promise<{ ex: Exchange; got: ParsedRequest }> {
  const [seen, got] = [setup.seen.length, setup.target.requests.length];
  expect(await rawExchange(setup.proxy.url, head)).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
  expect([setup.seen.length, setup.target.requests.length]).toEqual([seen + 1, got + 1]);
  return { ex: judgeable(setup.seen[seen]!, 1 << 20), got: setup.target.requests[got]! };
}

/** What the target gets from running `command` (a curl command, or a script with args). */
async function replayedBy(args: string[], env: Record<string, string> = {}): Promise<ParsedRequest> {
  const before = setup.target.requests.length;
  const r = await sh(args, env);
  expect([r.code, r.stderr]).toEqual([0, '']);
  expect(setup.target.requests).toHaveLength(before + 1);
  return setup.target.requests[before]!;
}

const redactor = () => new Redactor({ showPersonalData: false, secrets: [] });

/** replay.sh written from `report` in a new directory: its path. */
function written(report: Report): string {
  const script = join(mkdtempSync(join(tmpdir(), 'replay-as-recorded-')), 'replay.sh');
  writeFileSync(script, replayScript(report));
  return script;
}

/** What replay.sh asks for that it states simply: [variable, what to set it to]. */
const askedIn = (script: string) => [...readFileSync(script, 'utf8').matchAll(/^: "\$\{(\w+)\?set \1 to (.*)\}"$/gm)].map((m) => [m[1], m[2]]);

/** A traffic run's report holding one failed check whose evidence is `ex`: what replay.sh is written from. */
function reportOf(ex: Exchange, redact: Redactor): Report {
  const curl = curlCommand(ex, redact, BOUNDS);
  return {
    mode: 'traffic', target: { baseUrl: setup.target.url, description: 'proxied' }, configuration: {},
    checks: [{ id: 'REQ-X', level: 'MUST', status: 'fail', evidence: [{ exchange: ex.id }], replay: curl }],
    exchanges: [{ id: ex.id, source: ex.origin.source, url: ex.request.url, status: 200, curl, responseSha256: '-' }],
  } as unknown as Report;
}

describe('a replay of what the proxy recorded', () => {
  it('sends a header value of bytes past ASCII as those bytes, not as the UTF-8 of their Latin-1 reading', async () => {
    const { ex, got } = await recorded(Buffer.from('GET /supportstateuser HTTP/1.1\r\nHost: x\r\nX-Name: caf\xe9 \xa9 \x85x\r\nConnection: close\r\n\r\n', 'latin1'));
    expect(got.fields).toContainEqual(['X-Name', 'caf\xe9 \xa9 \x85x']);
    const curl = curlCommand(ex, redactor(), BOUNDS);
    expect(asReceived(await replayedBy(['-c', curl]))).toEqual(asReceived(got));
  });

  it('sends a chunked request of no body with its last chunk (curl had sent the head alone, and the target waited)', async () => {
    const { ex, got } = await recorded(Buffer.from('POST /supportstateuser HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n0\r\n\r\n'));
    expect(asReceived(await replayedBy(['-c', curlCommand(ex, redactor(), BOUNDS)]))).toEqual(asReceived(got));
  });

  it('sends a request target holding # as sent (curl drops a URL\'s fragment)', async () => {
    const { ex, got } = await recorded(Buffer.from('POST /supportstateuser#frag HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n'));
    expect(got.line).toBe('POST /supportstateuser#frag HTTP/1.1');
    expect(asReceived(await replayedBy(['-c', curlCommand(ex, redactor(), BOUNDS)]))).toEqual(asReceived(got));
  });

  it('sends a secret header the client sent empty as empty: replay.sh takes the variable set empty', async () => {
    const { ex, got } = await recorded(Buffer.from('GET /supportstateuser HTTP/1.1\r\nHost: x\r\nX-Api-Key: \r\nConnection: close\r\n\r\n'));
    expect(got.fields).toContainEqual(['X-Api-Key', '']);
    const redact = redactor();
    redact.secretHeader('x-api-key');
    const script = written(reportOf(ex, redact));
    expect(asReceived(await replayedBy([script], { HEADER_X_API_KEY: '' }))).toEqual(asReceived(got));
  });

  // The run sends a header string's characters as bytes (a --header café as 63 61 66 e9); the value a
  // user gives replay.sh is text in their terminal's UTF-8: it goes as the run's bytes.
  it('sends a secret header of bytes past ASCII as those bytes, the variable given as UTF-8 text', async () => {
    const { ex, got } = await recorded(Buffer.from('GET /supportstateuser HTTP/1.1\r\nHost: x\r\nX-Api-Key: caf\xe9 \xa9\r\nConnection: close\r\n\r\n', 'latin1'));
    expect(got.fields).toContainEqual(['X-Api-Key', 'caf\xe9 \xa9']);
    const redact = redactor();
    redact.secretHeader('x-api-key');
    const script = written(reportOf(ex, redact));
    expect(asReceived(await replayedBy([script], { HEADER_X_API_KEY: 'café ©' }))).toEqual(asReceived(got));
  });

  it('sends OPTIONS * with its asterisk-form request target', async () => {
    const { ex, got } = await recorded(Buffer.from('OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
    expect(got.line).toBe('OPTIONS * HTTP/1.1');
    expect(asReceived(await replayedBy(['-c', curlCommand(ex, redactor(), BOUNDS)]))).toEqual(asReceived(got));
  });

  it('asks for secret headers whose names hold \' $ ` ~ and sends them as recorded, never writing their values', async () => {
    const names = ["X-K'ey", 'X-$Key', 'X-`Key`', '~'];
    const secrets = names.map((_, i) => `s3cr3t-value-${i}-of-the-client`);
    const { ex, got } = await recorded(Buffer.from(`GET /supportstateuser HTTP/1.1\r\nHost: x\r\n${names.map((n, i) => `${n}: ${secrets[i]}\r\n`).join('')}Connection: close\r\n\r\n`));
    const redact = redactor();
    for (const n of names) redact.secretHeader(n);
    const script = written(reportOf(ex, redact));
    const text = readFileSync(script, 'utf8');
    for (const s of secrets) expect(text).not.toContain(s);
    const env = { HEADER_X_K_EY: secrets[0]!, HEADER_X__KEY: secrets[1]!, HEADER_X__KEY_: secrets[2]!, HEADER__: secrets[3]! };
    // Unset, each stops the script saying what to set it to; nothing is sent (set empty, it is sent empty).
    const { HEADER_X__KEY_: _left, ...withoutOne } = env;
    const unset = await sh([script], withoutOne);
    expect([unset.code, unset.stdout, unset.stderr]).toEqual([2, '', 'HEADER_X__KEY_: set HEADER_X__KEY_ to the value of the X-`Key` header the request was recorded with\n']);
    expect(asReceived(await replayedBy([script], env))).toEqual(asReceived(got));
  });

  it('asks for a secret X-Key-2 and the second of two X-Key fields as two variables, and sends each its own value', async () => {
    const values = ['value-of-x-key-2', 'value-of-x-key-first', 'value-of-x-key-second'];
    const { ex, got } = await recorded(Buffer.from(`GET /supportstateuser HTTP/1.1\r\nHost: x\r\nX-Key-2: ${values[0]}\r\nX-Key: ${values[1]}\r\nX-Key: ${values[2]}\r\nConnection: close\r\n\r\n`));
    const redact = redactor();
    for (const n of ['X-Key-2', 'X-Key']) redact.secretHeader(n);
    const script = written(reportOf(ex, redact));
    expect(askedIn(script)).toEqual([
      ['HEADER_X_KEY_2', 'the value of the X-Key-2 header the request was recorded with'],
      ['HEADER_X_KEY', 'the value of the X-Key header the request was recorded with'],
      ['HEADER_X_KEY_3', 'the value of field 2 named X-Key of the request replayed'],
    ]);
    expect(asReceived(await replayedBy([script], { HEADER_X_KEY_2: values[0]!, HEADER_X_KEY: values[1]!, HEADER_X_KEY_3: values[2]! }))).toEqual(asReceived(got));
  });
});

describe('a replay of a HAR form recorded as its parameters alone', () => {
  const entry = (url: string) => ({
    request: { method: 'POST', url, headers: [{ name: 'Content-Type', value: 'application/x-www-form-urlencoded' }, { name: 'Content-Length', value: '14' }], postData: { mimeType: 'application/x-www-form-urlencoded', params: [{ name: 'note', value: 'j doe!' }] } },
    response: { status: 200, headers: [], content: { text: '{}' } },
  });

  it('sends the body rebuilt from them, with its own length, and says so in its curl, its request text and replay.sh', async () => {
    const ex = exchangeOfEntry(entry(`${setup.target.url}/supportstateuser`), 0, 1 << 20);
    const curl = curlCommand(ex, redactor(), BOUNDS);
    expect(curl.startsWith(`${BODY_REBUILT} `)).toBe(true);
    expect(requestText(ex, redactor())).toContain('rebuilt from the form parameters recorded, postData.params');
    // The client's encoding (note=j+doe%21: 14 bytes, as recorded) is not known: the rebuilt body is sent with its own length.
    const got = await replayedBy(['-c', curl]);
    expect([got.body.toString(), got.headers['content-length']]).toEqual(['note=j%20doe!', '13']);
    const r = await sh([written(reportOf(ex, redactor()))]);
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toMatch(/^REQ-X \(MUST\) har\.1 \(its body rebuilt from the form parameters recorded: maybe not the bytes sent\): 200 sha256 /);
  });
});

describe('a replay of a HAR body recorded with another length than its Content-Length', () => {
  it('is not replayed: replay.sh says why and sends nothing, and the request text gives both lengths', async () => {
    // Its client sent josé in Latin-1 (19 bytes); the recorder wrote it as text, whose UTF-8 is 20.
    const body = '{"userName":"jos\u00e9"}';
    const ex = exchangeOfEntry({
      request: { method: 'POST', url: `${setup.target.url}/supportstateuser`, headers: [{ name: 'Content-Type', value: 'application/json' }, { name: 'Content-Length', value: String(body.length) }], postData: { text: body } },
      response: { status: 200, headers: [], content: { text: '{}' } },
    }, 0, 1 << 20);
    expect([body.length, Buffer.byteLength(body)]).toEqual([19, 20]);
    // Its userName shown (personal data), so nothing in it is masked: only its length stops the replay.
    const shown = new Redactor({ showPersonalData: true, secrets: [] });
    const before = setup.target.requests.length;
    const r = await sh([written(reportOf(ex, shown))]);
    expect([r.code, r.stderr, r.stdout]).toEqual([0, '', 'REQ-X (MUST) har.1: not replayed: its request body was recorded with another length than its Content-Length says was sent: not the bytes sent\n']);
    expect(setup.target.requests).toHaveLength(before);
    expect(requestText(ex, shown)).toContain('(recorded as 20 bytes, where its Content-Length says 19 were sent: not the bytes sent)');
  });

  it('is not sent by the differential to either deployment, which says why, naming both lengths', async () => {
    const body = '{"userName":"jos\u00e9"}';
    const ex = exchangeOfEntry({
      request: { method: 'POST', url: 'http://svc.example/supportstateuser', headers: [{ name: 'Content-Type', value: 'application/json' }, { name: 'Content-Length', value: '19' }], postData: { text: body } },
      response: { status: 200, headers: [], content: { text: '{}' } },
    }, 0, 1 << 20);
    const notSent: string[] = [];
    const sent: string[] = [];
    for await (const spec of replayed((async function* () { yield ex; })(), {}, (e, why) => notSent.push(`${e.id}: ${why}`))) sent.push(spec.id);
    expect([sent, notSent]).toEqual([[], ['har.1: its request body was recorded as 20 bytes, where its Content-Length says 19 were sent: not the bytes sent']]);
  });
});

describe('a replay of what a client sent the judging reference', () => {
  it('sends an absolute-form target as sent, to the judging reference, not to the host it names', async () => {
    const judging = await startJudgingReference({ reportDir: mkdtempSync(join(tmpdir(), 'replay-as-recorded-')), print: () => undefined, reports: new Set(['summary']), showPersonalData: true });
    try {
      // A userName as a number fails REQ-JSON-TYPES: the report keeps the exchange (shown, so its curl sends it).
      const body = '{"userName":7,"searchValues":"x"}';
      await rawExchange(judging.url, `POST http://elsewhere.invalid/supportstateuser HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`);
      const first = (await judging.report()).report.exchanges;
      expect(first.map((e) => [e.id, e.url])).toEqual([['client.1', 'http://elsewhere.invalid/supportstateuser']]);
      for (const e of first) {
        const r = await sh(['-c', e.curl]);
        expect([e.id, r.code, r.stderr]).toEqual([e.id, 0, '']);
      }
      const again = (await judging.report()).report.exchanges.slice(1);
      expect(again.map((e) => [e.url, e.request, e.status])).toEqual(first.map((e) => [e.url, e.request, e.status]));
    } finally {
      await judging.close();
    }
  });
});
