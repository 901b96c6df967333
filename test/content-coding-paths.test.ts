// An answer's content coding is recorded by one function (decodedAnswer) for a probe and for the
// proxy: the proxy had its own copy of the branches, which dropped Content-Encoding from a decoded
// answer and recorded no `contentCoding`, so CONTENT-CODING and the body checks saw another answer
// than a probe's of the same bytes. The words of a body left coded say whether the request offered
// its coding; the reports show a body not data of its coding as received, the failure named.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOGUE } from '../lib/checks/catalogue.js';
import { COMPRESSION_CHECKS } from '../lib/checks/compression.js';
import { ExchangeView } from '../lib/checks/exchange-view.js';
import { classify } from '../lib/contract/classify.js';
import { DEFAULT_NAMESPACES } from '../lib/contract/namespaces.js';
import { runConformance } from '../lib/engine/run.js';
import { decodeContent } from '../lib/http/content-coding.js';
import { recordedResponse, type Exchange } from '../lib/http/exchange.js';
import { BodySlots, createDispatcher, RequestBudget, send } from '../lib/http/send.js';
import { presentedReport } from '../lib/reporting/presented-report.js';
import { Redactor } from '../lib/reporting/redact.js';
import { buildReport } from '../lib/reporting/report.js';
import { exchangeOfEntry } from '../lib/traffic/har.js';
import { judgeable, type ForwardedExchange } from '../lib/traffic/proxy.js';

const MIB = 1024 * 1024;
const JSON_BODY = '{"userName":"jdoe.support"}';
const OFFERED = 'gzip, deflate, br, zstd';
/** Each answer: its Content-Encoding (none: no header), its bytes, and the request's Accept-Encoding. */
const ANSWERS: Record<string, { coding?: string; bytes: Buffer; accept?: string }> = {
  gzip: { coding: 'gzip', bytes: gzipSync(JSON_BODY), accept: OFFERED },
  deflate: { coding: 'deflate', bytes: deflateSync(JSON_BODY), accept: OFFERED },
  br: { coding: 'br', bytes: brotliCompressSync(JSON_BODY), accept: OFFERED },
  'gzip over plain text': { coding: 'gzip', bytes: Buffer.from(JSON_BODY), accept: OFFERED },
  'gzip past the cap once decoded': { coding: 'gzip', bytes: gzipSync(Buffer.alloc(2 * MIB, 0x20)), accept: OFFERED },
  identity: { coding: 'identity', bytes: Buffer.from(JSON_BODY), accept: OFFERED },
  'no coding': { bytes: Buffer.from(JSON_BODY), accept: OFFERED },
  'zstd, offered': { coding: 'zstd', bytes: Buffer.from(JSON_BODY), accept: OFFERED },
  'gzip, not offered': { coding: 'gzip', bytes: gzipSync(JSON_BODY) },
  'br, only gzip offered': { coding: 'br', bytes: brotliCompressSync(JSON_BODY), accept: 'gzip' },
};

let server: Server;
let base = '';
beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    const a = ANSWERS[decodeURIComponent(req.url!.slice(1))]!;
    res.writeHead(200, 'OK', ['Content-Type', 'application/json', ...(a.coding ? ['Content-Encoding', a.coding] : [])]);
    res.end(a.bytes);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

async function probe(name: string): Promise<Exchange> {
  const options = { timeoutMs: 30_000, maxBodyBytes: MIB };
  const dispatcher = createDispatcher(options);
  try {
    const accept = ANSWERS[name]!.accept;
    return await send({ id: 'login', title: 'x', origin: { source: 'probe', vouched: true }, method: 'POST', path: `/${encodeURIComponent(name)}`, headers: { 'content-type': 'application/json', ...(accept ? { 'accept-encoding': accept } : {}) }, body: '{}' },
      base, { dispatcher, options, budget: new RequestBudget(), slots: new BodySlots() });
  } finally {
    await dispatcher.close();
  }
}

/** The same answer handed to the proxy's judging: the probe's fields as received, the server's bytes. */
function forwarded(name: string, head: NonNullable<Exchange['answerHead']>): ForwardedExchange {
  const a = ANSWERS[name]!;
  const rawHeaders = head.rawHeaders!.map((f) => (typeof f === 'string' ? f : Buffer.from(f as Uint8Array).toString('latin1')));
  return {
    id: 'proxy.1', startedAt: 0, durationMs: 1, method: 'POST', url: `${base}/${encodeURIComponent(name)}`, path: `/${encodeURIComponent(name)}`,
    requestHeaders: ['Host', 't', 'Content-Type', 'application/json', ...(a.accept ? ['Accept-Encoding', a.accept] : [])], requestBody: new Uint8Array(Buffer.from('{}')),
    answer: { status: head.status, statusMessage: head.reason, rawHeaders, body: new Uint8Array(a.bytes) }, held: 0,
  };
}

/** What the checks read of an exchange: its head, its response or why none, its text, its coding, and CONTENT-CODING's verdict. */
function read(ex: Exchange) {
  const view = new ExchangeView(ex, { namespaces: DEFAULT_NAMESPACES });
  const head = view.head();
  const r = view.response();
  return {
    head: head.ok ? { status: head.value.status, headers: head.value.headers } : head.reason,
    response: r.ok ? { size: r.value.size, sha256: r.value.sha256, contentCoding: r.value.contentCoding } : r.reason,
    text: view.text(),
    contentCodingCheck: COMPRESSION_CHECKS[0]!.judge(view),
  };
}

describe('a probe and the proxy record the same answer alike, as the checks read it', () => {
  it.each(Object.keys(ANSWERS))('%s', async (name) => {
    const sent = await probe(name);
    const head = sent.response ?? sent.answerHead!;
    // The proxy's words for a body past the cap add that the client got it whole: the rest is the same.
    const proxied = JSON.parse(JSON.stringify(read(judgeable(forwarded(name, head), MIB))).replaceAll(' (forwarded whole)', '')) as unknown;
    expect(proxied).toEqual(JSON.parse(JSON.stringify(read(sent))));
  });

  it('gzip: the body judged is the JSON, Content-Encoding kept and the coding recorded, by both', async () => {
    const sent = await probe('gzip');
    for (const ex of [sent, judgeable(forwarded('gzip', sent.response!), MIB)]) {
      expect([ex.response?.headers['content-encoding'], ex.response?.contentCoding, ex.response?.body.toString()]).toEqual(['gzip', { codings: ['gzip'] }, JSON_BODY]);
    }
  });

  it('a coding named after a member of every object (constructor, __proto__) is no coding the harness decodes: left as received, with no coding undone', () => {
    for (const coding of ['constructor', '__proto__']) {
      expect(decodeContent(Buffer.from(JSON_BODY), coding, '*', MIB)).toEqual({ ok: true, body: Buffer.from(JSON_BODY), codings: [] });
    }
  });
});

/** The same answer as a HAR 1.2 entry holds it (a browser's, mitmproxy's): the fields as received,
 *  Content-Encoding among them; content.text the body decoded (base64 of it), content.size its length,
 *  bodySize and _transferSize the bytes that came. A body that did not decode is kept as it came. */
function harEntry(name: string, head: NonNullable<Exchange['answerHead']>) {
  const a = ANSWERS[name]!;
  const decoded = name === 'gzip past the cap once decoded' ? Buffer.alloc(2 * MIB, 0x20) : a.coding && a.coding !== 'identity' && name !== 'gzip over plain text' ? Buffer.from(JSON_BODY) : a.bytes;
  const pairs = (list: readonly string[]) => list.flatMap((v, i) => (i % 2 ? [] : [{ name: v, value: list[i + 1]! }]));
  const rawHeaders = head.rawHeaders!.map((f) => (typeof f === 'string' ? f : Buffer.from(f as Uint8Array).toString('latin1')));
  return {
    startedDateTime: new Date(0).toISOString(), time: 1,
    request: { method: 'POST', url: `${base}/${encodeURIComponent(name)}`, httpVersion: 'HTTP/1.1', headers: pairs(['Host', 't', 'Content-Type', 'application/json', ...(a.accept ? ['Accept-Encoding', a.accept] : [])]), queryString: [], cookies: [], headersSize: -1, bodySize: 2, postData: { mimeType: 'application/json', text: '{}' } },
    response: { status: head.status, statusText: head.reason, httpVersion: 'HTTP/1.1', headers: pairs(rawHeaders), cookies: [], redirectURL: '', headersSize: -1, bodySize: a.bytes.length, _transferSize: a.bytes.length + 100,
      content: { size: decoded.length, compression: decoded.length - a.bytes.length, mimeType: 'application/json', encoding: 'base64', text: decoded.toString('base64') } },
    cache: {}, timings: { send: 0, wait: 1, receive: 0 },
  };
}

/** What the checks conclude of an exchange, sent as a login (the test server's paths are no operation):
 *  whether CONTENT-CODING judges it and its verdict, and the body as the body checks read it. */
function concluded(ex: Exchange) {
  const view = new ExchangeView(ex, { namespaces: DEFAULT_NAMESPACES }, classify({ ...ex.request, url: 'http://t/supportstateuser' }));
  const check = COMPRESSION_CHECKS[0]!;
  const json = view.json();
  return {
    contentCoding: check.appliesTo!(view) ? check.judge(view) : 'not judged',
    text: view.text(),
    json: json.ok ? json.value.value : json.reason,
  };
}

/** Where a HAR cannot hold what a probe concludes, and why (the bytes received are not in it). */
const HAR_DIFFERS: Record<string, string> = {
  // A recorder that decoded zstd vouches the body decodes; the harness cannot decode zstd itself.
  'zstd, offered': 'decoded by the recorder',
  // The recorder kept the bytes as they came, as it keeps a body of no coding: indistinguishable.
  'gzip over plain text': 'the bytes received are not in the HAR',
};

describe('a HAR recording of the same answer, decoded by its recorder, is judged as a probe\'s by CONTENT-CODING and the body checks', () => {
  it.each(Object.keys(ANSWERS).filter((n) => !(n in HAR_DIFFERS)))('%s', async (name) => {
    const sent = await probe(name);
    const recorded = exchangeOfEntry(harEntry(name, sent.response ?? sent.answerHead!), 0, MIB);
    // The HAR's words for a coding not asked for add that its recorder decoded it: the rest is the same.
    expect(JSON.parse(JSON.stringify(concluded(recorded)).replaceAll(' (the recording holds it decoded by its recorder)', ''))).toEqual(JSON.parse(JSON.stringify(concluded(sent))));
  });

  it('where they differ, the HAR\'s conclusion is its own and named: zstd decoded by the recorder is read; gzip over plain text, its bytes not in the HAR, passes', async () => {
    const har = async (name: string) => concluded(exchangeOfEntry(harEntry(name, (await probe(name)).response!), 0, MIB));
    const json = { userName: 'jdoe.support' };
    expect(await har('zstd, offered')).toEqual({ contentCoding: [], text: { ok: true, value: JSON_BODY }, json });
    expect(concluded(await probe('zstd, offered')).contentCoding).toEqual({ skip: 'Content-Encoding "zstd" is not one the harness decodes' });
    expect(await har('gzip over plain text')).toEqual({ contentCoding: [], text: { ok: true, value: JSON_BODY }, json });
  });

  it('the HAR\'s answer: Content-Encoding kept, the codings its recorder undid, size and SHA-256 of the decoded body (the bytes received are not in it)', async () => {
    const r = exchangeOfEntry(harEntry('gzip', (await probe('gzip')).response!), 0, MIB).response!;
    expect([r.headers['content-encoding'], r.contentCoding, r.size, r.sha256]).toEqual(['gzip', { codings: ['gzip'], byRecorder: true }, JSON_BODY.length, recordedResponse(200, {}, Buffer.from(JSON_BODY)).sha256]);
  });
});

const coded = (contentEncoding: string, accept?: string): Exchange => ({
  id: 'login', title: 'x', origin: { source: 'probe', vouched: true }, startedAt: '', durationMs: 1,
  request: { method: 'POST', url: 'http://t/supportstateuser', headers: accept === undefined ? {} : { 'Accept-Encoding': accept } },
  response: recordedResponse(200, { 'content-type': 'application/json', 'content-encoding': contentEncoding }, Buffer.from(JSON_BODY)),
});
const textOf = (ex: Exchange) => new ExchangeView(ex, { namespaces: DEFAULT_NAMESPACES }).text();

describe('a body left in its content coding is said to be so, truly', () => {
  it('zstd, which the request offered (Accept-Encoding: zstd): the harness cannot decode it, said so', () => {
    expect(textOf(coded('zstd', 'zstd'))).toEqual({ ok: false, reason: 'the body is encoded (Content-Encoding "zstd"), which the request offered but the harness cannot decode; not decoded' });
  });

  it('gzip, zstd, both offered: the one the harness cannot decode named', () => {
    expect(textOf(coded('gzip, zstd', 'gzip, zstd'))).toEqual({ ok: false, reason: 'the body is encoded (Content-Encoding "gzip, zstd"), which the request offered but the harness cannot decode ("zstd"); not decoded' });
  });

  it('zstd where the request sent no Accept-Encoding, or offered only gzip: not asked for', () => {
    for (const accept of [undefined, 'gzip']) {
      expect(textOf(coded('zstd', accept))).toEqual({ ok: false, reason: 'the body is encoded (Content-Encoding "zstd"), which the request did not ask for; not decoded' });
    }
  });
});

describe('the reports show a proxied body that is not data of its coding as received, the failure named', () => {
  const answer = (coding: string, body: Buffer): ForwardedExchange => ({
    id: `proxy.${coding}`, startedAt: 0, durationMs: 1, method: 'POST', url: 'http://t/supportstateuser', path: '/supportstateuser',
    requestHeaders: ['Host', 't', 'Content-Type', 'application/json', 'Accept-Encoding', OFFERED], requestBody: new Uint8Array(Buffer.from('{}')),
    answer: { status: 200, statusMessage: 'OK', rawHeaders: ['Content-Type', 'application/json', 'Content-Encoding', coding], body: new Uint8Array(body) }, held: 0,
  });
  const TEXT = '{"responseStatus":{"errorCode":"NotGzip"}}';
  const BINARY = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x01, 0x02]);

  it('text under gzip: its text as received, then why it is not read; binary under br: its size, then why; a decoded one shorter than its coded bytes: whole, nothing said to be left out', async () => {
    const recorded = [judgeable(answer('gzip', Buffer.from(TEXT)), MIB), judgeable(answer('br', BINARY), MIB), judgeable(answer('deflate', deflateSync('{}')), MIB)];
    const run = await runConformance({ baseUrl: 'http://t', recorded, mode: 'traffic', checks: CATALOGUE, namespaces: DEFAULT_NAMESPACES, values: {}, extraHeaders: {}, timeoutMs: 1000, maxBodyBytes: MIB, probes: false });
    const report = buildReport(run, { redactor: new Redactor({ showPersonalData: false, secrets: [] }), harness: { name: 'h', version: '0' }, targetDescription: 't', configuration: {} });
    // exchanges.json holds report.exchanges' texts; the HTML's attachments, presentedReport's.
    for (const shown of [report, presentedReport(report)]) {
      const body = (id: string) => shown.exchanges.find((e) => e.id === id)!.response.split('\n\n').slice(1).join('\n\n');
      expect(body('proxy.gzip')).toMatch(new RegExp(`^${TEXT.replace(/[{}]/g, '\\$&')}\n… \\(shown as received: the body does not decode as gzip: not gzip data \\(incorrect header check\\)\\)$`));
      expect(body('proxy.br')).toMatch(/^\(7 bytes of binary data\)\n… \(shown as received: the body does not decode as br: not br data \(.+\)\)$/);
      // Decoded: 2 bytes shown of 10 received, none of them left out (it said the rest was not shown).
      expect(body('proxy.deflate')).toBe('{}');
    }
    const check = report.checks.find((c) => c.id === 'CONTENT-CODING')!;
    expect([check.status, check.evidence.map((e) => [e.exchange, e.message])]).toEqual(['fail', [
      ['proxy.gzip', 'Content-Encoding "gzip", but the body is not gzip data (incorrect header check)'],
      ['proxy.br', expect.stringMatching(/^Content-Encoding "br", but the body is not br data \(/)],
    ]]);
  });
});
