// A HAR's request is sent again by two clients: the harness's (undici, `--har --legacy-url`) and the
// curl of replay.sh. A header value is a string in a HAR, which a browser records as the bytes sent
// read as Latin-1 (Chromium's DevTools converts each raw header value from ISO-8859-1; fetch() sends
// a header string's characters as bytes and refuses one past U+00FF). undici sent `é` as that byte,
// curl as its UTF-8: two replays, two requests. Now both send the byte. A value holding a character
// past U+00FF (`€`) names no byte: neither sends it, each saying why (undici refused it, and curl sent
// its UTF-8). undici refuses an Expect header, so an entry that recorded `Expect: 100-continue` was
// not sent at all: now it is sent without, and the run says so.
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPECT_LEFT_OUT, replayed } from '../lib/engine/differential.js';
import type { Exchange, ExchangeSpec } from '../lib/http/exchange.js';
import { BodySlots, createDispatcher, RequestBudget, send } from '../lib/http/send.js';
import { curlCommand, HEADER_PAST_LATIN1, URL_UNSENDABLE } from '../lib/reporting/exchange-text.js';
import { Redactor } from '../lib/reporting/redact.js';
import type { Report } from '../lib/reporting/report.js';
import { replayBounds, replayScript } from '../lib/reporting/replay-script.js';
import { exchangeOfEntry } from '../lib/traffic/har.js';
import { startRawTarget, type RawTarget } from './helpers/raw-target.js';

const BOUNDS = replayBounds({ configuration: {} });
// No value the reports mask: replay.sh sends it.
const BODY = '{"ownerId":42}';
let target: RawTarget;
beforeAll(async () => { target = await startRawTarget(() => 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}'); });
afterAll(() => target.close());

const sh = (args: string[]) => new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
  execFile('sh', args, { env: { PATH: process.env.PATH ?? '' }, timeout: 60_000 }, (e, stdout, stderr) =>
    resolve({ code: e ? (typeof e.code === 'number' ? e.code : -1) : 0, stdout, stderr }));
});

/** A HAR entry posting BODY to the raw target with these header fields. */
const entryOf = (headers: readonly (readonly [string, string])[]): Exchange => exchangeOfEntry({
  request: { method: 'POST', url: `${target.url}/supportstateuser`, headers: [['Content-Type', 'application/json'], ...headers].map(([name, value]) => ({ name, value })), postData: { text: BODY } },
  response: { status: 200, headers: [], content: { text: '{}' } },
}, 0, 1 << 20);

/** What `replayed` makes of one entry: the requests it yields, and what it says of it. */
async function replay(ex: Exchange) {
  const said: string[] = [];
  const specs: ExchangeSpec[] = [];
  async function* one() { yield ex; }
  for await (const s of replayed(one(), {}, (_e, why) => said.push(`not sent: ${why}`), (_e, how) => said.push(`changed: ${how}`))) specs.push(s);
  return { specs, said };
}

/** Sends `spec` with the harness's client; the exchange recorded and the bytes of the X-Name line the target got. */
async function harnessSends(spec: ExchangeSpec): Promise<{ sent: Exchange; line: Buffer | undefined }> {
  const options = { timeoutMs: 30_000, maxBodyBytes: 1 << 20 };
  const dispatcher = createDispatcher(options);
  const before = target.requests.length;
  try {
    const sent = await send(spec, target.url, { dispatcher, options, budget: new RequestBudget(), slots: new BodySlots() });
    return { sent, line: nameLine(before) };
  } finally {
    await dispatcher.close();
  }
}

/** The bytes of the X-Name field of the request the target got after `before` (fields are read as Latin-1). */
const nameLine = (before: number): Buffer | undefined => {
  const field = target.requests[before]?.fields.find(([k]) => k === 'X-Name');
  return field && Buffer.from(field[1], 'latin1');
};

/** replay.sh for a report whose one failed check's evidence is `ex`. */
function scriptOf(ex: Exchange): string {
  const curl = curlCommand(ex, new Redactor({ showPersonalData: false, secrets: [] }), BOUNDS);
  const report = {
    mode: 'traffic', target: { baseUrl: target.url, description: 'raw' }, configuration: {},
    checks: [{ id: 'REQ-X', level: 'MUST', status: 'fail', evidence: [{ exchange: ex.id }], replay: curl }],
    exchanges: [{ id: ex.id, source: ex.origin.source, url: ex.request.url, status: 200, curl, responseSha256: '-' }],
  } as unknown as Report;
  const script = join(mkdtempSync(join(tmpdir(), 'replay-har-header-bytes-')), 'replay.sh');
  writeFileSync(script, replayScript(report));
  return script;
}

describe('a HAR header value past ASCII, sent again', () => {
  it('is sent as its Latin-1 bytes by the harness\'s client and by replay.sh alike: café as 63 61 66 e9', async () => {
    const { specs, said } = await replay(entryOf([['X-Name', 'café']]));
    expect(said).toEqual([]);
    const harness = await harnessSends(specs[0]!);
    const before = target.requests.length;
    const r = await sh([scriptOf(harness.sent)]);
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect({ harness: harness.line?.toString('hex'), curl: nameLine(before)?.toString('hex') }).toEqual({ harness: '636166e9', curl: '636166e9' });
  });

  it('holding a character past U+00FF (€), is sent by neither, each saying why', async () => {
    const ex = entryOf([['X-Name', '5 €']]);
    const { specs, said } = await replay(ex);
    expect(specs).toEqual([]);
    expect(said).toEqual(['not sent: its header "X-Name" holds a character past U+00FF, which names no byte (a HAR\'s header value is the bytes sent read as Latin-1, as browsers record it): what was sent is not known']);
    const curl = curlCommand(ex, new Redactor({ showPersonalData: false, secrets: [] }), BOUNDS);
    expect(curl.startsWith(`${HEADER_PAST_LATIN1} `)).toBe(true);
    const before = target.requests.length;
    const r = await sh([scriptOf(ex)]);
    expect([r.code, r.stderr, r.stdout]).toEqual([0, '', 'REQ-X (MUST) har.1: not replayed: a header of its request holds a character past U+00FF, which names no byte (a header value is the bytes sent read as Latin-1): what was sent is not known\n']);
    expect(target.requests).toHaveLength(before);
  });
});

describe('a HAR entry that recorded Expect: 100-continue, sent again', () => {
  it('is sent by the harness\'s client without it, its title and the run saying so, and replay.sh sends what the harness did', async () => {
    const { specs, said } = await replay(entryOf([['Expect', '100-continue'], ['X-Name', 'x']]));
    expect(said).toEqual([`changed: ${EXPECT_LEFT_OUT}`]);
    expect(specs[0]!.title).toMatch(/, replayed without its Expect: 100-continue \(the harness's HTTP client sends none\)$/);
    const before = target.requests.length;
    const { sent } = await harnessSends(specs[0]!);
    expect(sent.response?.status).toBe(200);
    const r = await sh([scriptOf(sent)]);
    expect([r.code, r.stderr]).toEqual([0, '']);
    const [harness, curl] = target.requests.slice(before);
    expect([harness?.headers.expect, harness?.body.toString(), curl?.headers.expect, curl?.body.toString()]).toEqual([undefined, BODY, undefined, BODY]);
  });

  it('asking for other than 100-continue, is sent by neither, saying why', async () => {
    const { specs, said } = await replay(entryOf([['Expect', 'x-other']]));
    expect([specs, said]).toEqual([[], ['not sent: its Expect header asks for other than 100-continue, which the harness\'s HTTP client (undici) cannot send: without it the request is another']]);
  });
});

describe('a HAR entry whose URL holds a space', () => {
  it('is not replayed, replay.sh saying why, never "no answer" to a request curl refused to send', async () => {
    const ex = exchangeOfEntry({
      request: { method: 'POST', url: `${target.url}/supportstateuser?format=json&q=a b`, headers: [{ name: 'Content-Type', value: 'application/json' }], postData: { text: BODY } },
      response: { status: 200, headers: [], content: { text: '{}' } },
    }, 0, 1 << 20);
    expect(curlCommand(ex, new Redactor({ showPersonalData: false, secrets: [] }), BOUNDS).startsWith(`${URL_UNSENDABLE} `)).toBe(true);
    const before = target.requests.length;
    const r = await sh([scriptOf(ex)]);
    expect([r.code, r.stderr, r.stdout]).toEqual([0, '', 'REQ-X (MUST) har.1: not replayed: its URL holds a space or a control character, which no request line carries (RFC 9112 3.2) and curl refuses: the recording does not say how it was sent\n']);
    expect(target.requests).toHaveLength(before);
  });

  it('so is one holding a control character (curl: "URL using bad/illegal format"), but not one holding a format character or %1b, which curl sends', () => {
    const curlOf = (url: string) => curlCommand(exchangeOfEntry({ request: { method: 'GET', url, headers: [] }, response: { status: 200, headers: [], content: { text: '{}' } } }, 0, 1 << 20), new Redactor({ showPersonalData: false, secrets: [] }), BOUNDS);
    expect(curlOf(`${target.url}/supportstateuser?q=\u001b[2J`).startsWith(`${URL_UNSENDABLE} `)).toBe(true);
    expect(curlOf(`${target.url}/supportstateuser?q=\u202e%1b#frag ment`).startsWith(': ')).toBe(false);
  });
});
