// A failed check's curl command (summary.json's replay, replay.sh) sends the request of its exchange
// as it was sent: the request line as it was, and the headers it had, no more, no fewer. curl left to
// itself adds Accept: */* and User-Agent: curl/… (Accept decides the format a service answers in),
// a form Content-Type to a body without one, and Expect: 100-continue to a large body; drops a header
// of no value; reads [ ] { } in a URL as globs (failing, or sending other bytes) and resolves /./ and
// /../. Traffic a proxy or a recording saw holds all of these. Each command is run with curl against
// a raw socket that logs what arrives.
import { execFile } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Exchange } from '../lib/http/exchange.js';
import { curlCommand } from '../lib/reporting/exchange-text.js';
import { replayBounds } from '../lib/reporting/replay-script.js';
import { Redactor } from '../lib/reporting/redact.js';
import { startRawTarget, type RawTarget } from './helpers/raw-target.js';

/** The bounds of a run at the default --timeout. */
const BOUNDS = replayBounds({ configuration: {} });

let target: RawTarget;
beforeAll(async () => { target = await startRawTarget(() => 'HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n'); });
afterAll(async () => { await target.close(); });

const sh = (command: string) => new Promise<{ code: number; stderr: string }>((resolve) => {
  execFile('sh', ['-c', command], { timeout: 60_000 }, (e, _stdout, stderr) => resolve({ code: e ? (typeof e.code === 'number' ? e.code : -1) : 0, stderr }));
});

const exchange = (method: string, pathAndQuery: string, headers: Record<string, string>, body?: string): Exchange => ({
  id: 'proxy.1', title: 'a request a client sent', origin: { source: 'proxy', vouched: false }, startedAt: '2026-01-01T00:00:00.000Z', durationMs: 1,
  request: { method, url: `${target.url}${pathAndQuery}`, headers, ...(body !== undefined ? { body } : {}) },
});

/** What the target received from the exchange's curl command: its request line, headers and body. */
async function replayed(ex: Exchange) {
  const before = target.requests.length;
  const r = await sh(curlCommand(ex, new Redactor({ showPersonalData: false, secrets: [] }), BOUNDS));
  expect([r.code, r.stderr]).toEqual([0, '']);
  expect(target.requests).toHaveLength(before + 1);
  const got = target.requests[before]!;
  return { line: got.line, headers: got.headers, body: got.body.toString('utf8') };
}

/** What the target must receive: the request as sent, with the Host and Content-Length every sender writes. */
const asSent = (ex: Exchange) => ({
  line: `${ex.request.method} ${ex.request.url.slice(target.url.length)} HTTP/1.1`,
  headers: {
    host: new URL(target.url).host, ...Object.fromEntries(Object.entries(ex.request.headers).map(([k, v]) => [k.toLowerCase(), v])),
    ...(ex.request.body !== undefined ? { 'content-length': String(Buffer.byteLength(ex.request.body)) } : {}),
  },
  body: ex.request.body ?? '',
});

describe('a curl replay sends the request as it was sent', () => {
  it('a JSON POST with no Accept and no User-Agent: curl adds neither', async () => {
    const ex = exchange('POST', '/supportstateuser', { 'content-type': 'application/json' }, '{"note":"a"}');
    expect(await replayed(ex)).toEqual(asSent(ex));
  });

  it('a body sent with no Content-Type gets none, and a body over 1 KiB no Expect', async () => {
    const ex = exchange('POST', '/supportstateuser', { accept: 'application/json' }, `{"note":"${'a'.repeat(2000)}"}`);
    expect(await replayed(ex)).toEqual(asSent(ex));
  });

  it('a query string holding [ ] { } is sent as it was, not read as a curl glob', async () => {
    const ex = exchange('GET', '/json/reply/SupportStateUserLoginRequest?filter[name]=a&q={x}', { 'user-agent': 'app/1' });
    expect(await replayed(ex)).toEqual(asSent(ex));
  });

  it('a path with dot segments is sent as it was, not resolved', async () => {
    const ex = exchange('POST', '/json/./reply/../reply/SupportStateUserLoginRequest', { 'content-type': 'application/json' }, '{}');
    expect(await replayed(ex)).toEqual(asSent(ex));
  });

  it('a header of no value is sent, with no value', async () => {
    const ex = exchange('POST', '/soap11', { 'content-type': 'text/xml', soapaction: '' }, '<e/>');
    expect(await replayed(ex)).toEqual(asSent(ex));
  });
});
