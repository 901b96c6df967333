// Compressed answers: the probes that send Accept-Encoding, the body decoded as it arrives (within
// the cap counted after decoding), every check judging the decoded body, and CONTENT-CODING refusing
// a coding the request did not offer or a body that does not decode.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkById } from '../lib/checks/catalogue.js';
import { ExchangeView } from '../lib/checks/exchange-view.js';
import { DEFAULT_NAMESPACES } from '../lib/contract/namespaces.js';
import { impersonateLogout, OPERATIONS } from '../lib/contract/operations.js';
import { PROBE } from '../lib/engine/probes.js';
import { runConformance, type RunResult } from '../lib/engine/run.js';
import { ACCEPT_ENCODING, decodeContent, offeredCodings } from '../lib/http/content-coding.js';
import type { Exchange } from '../lib/http/exchange.js';
import { BodySlots, createDispatcher, RequestBudget, send } from '../lib/http/send.js';
import { FAULTS, STYLES } from '../lib/reference/variants.js';
import { startReference } from '../lib/reference/server.js';

const CHECK = checkById.get('CONTENT-CODING')!;
const MIB = 1024 * 1024;
const RECORD = '{"userName":"jdoe"}';

async function runAgainst(variants: string[]): Promise<RunResult> {
  const ref = await startReference({ variants: [...FAULTS, ...STYLES].filter((v) => variants.includes(v.name)) });
  try {
    return await runConformance({ baseUrl: ref.url, namespaces: DEFAULT_NAMESPACES, values: {}, extraHeaders: {}, timeoutMs: 30_000, maxBodyBytes: 10 * MIB });
  } finally {
    await ref.close();
  }
}

/** A server answering every request with one fixed answer, for transport cases the reference never makes. */
let server: Server;
let answer: { headers: Record<string, string>; body: Buffer } = { headers: {}, body: Buffer.alloc(0) };
let base = '';
beforeAll(async () => {
  server = createServer((_req, res) => { res.writeHead(200, { 'content-type': 'application/json', ...answer.headers }); res.end(answer.body); });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

/** Sends one login POST with the given Accept-Encoding to the fixed answer, under a cap. */
async function fetchFixed(headers: Record<string, string>, body: Buffer, acceptEncoding?: string, maxBodyBytes = MIB): Promise<Exchange> {
  answer = { headers, body };
  const options = { timeoutMs: 30_000, maxBodyBytes };
  const dispatcher = createDispatcher(options);
  try {
    return await send({ id: 'login.compressed', title: 'x', origin: { source: 'probe', vouched: true }, method: 'POST', path: '/supportstateuser',
      headers: { 'content-type': 'application/json', ...(acceptEncoding ? { 'accept-encoding': acceptEncoding } : {}) }, body: '{}' },
    base, { dispatcher, options, budget: new RequestBudget(), slots: new BodySlots() });
  } finally {
    await dispatcher.close();
  }
}

const judge = (ex: Exchange) => CHECK.judge(new ExchangeView(ex, { namespaces: DEFAULT_NAMESPACES }));

describe('the compressed probes', () => {
  it(`one per operation, each sending Accept-Encoding: ${ACCEPT_ENCODING}, the only probes that send it`, async () => {
    const run = await runAgainst([]);
    const sending = run.exchanges.filter((e) => e.request.headers['accept-encoding'] !== undefined);
    expect(sending.map((e) => e.id).sort()).toEqual(OPERATIONS.map((op) => PROBE.compressed(op)).sort());
    for (const e of sending) expect(e.request.headers['accept-encoding']).toBe(ACCEPT_ENCODING);
  }, 60_000);

  it('against the gzip style: each answer arrives gzip-compressed, is recorded decoded, and every check passes', async () => {
    const run = await runAgainst(['gzip']);
    const compressed = run.exchanges.filter((e) => e.response?.headers['content-encoding'] === 'gzip');
    expect(compressed.map((e) => e.id).sort()).toEqual(OPERATIONS.map((op) => PROBE.compressed(op)).sort());
    for (const e of compressed) {
      expect(e.response!.contentCoding).toEqual({ codings: ['gzip'] });
      // The body kept is (a head of) the decoded text, not the gzip bytes received.
      expect(e.response!.body.toString('utf8')).toMatch(e.id === PROBE.compressed(impersonateLogout) ? /^<s:Envelope / : /^\{"/);
    }
    expect(run.results.filter((r) => r.status === 'fail').map((r) => r.check.id)).toEqual([]);
    expect(run.results.find((r) => r.check.id === 'CONTENT-CODING')!.status).toBe('pass');
    expect(run.verdict).toBe('conformant');
  }, 60_000);

  it('against a reference that says gzip and sends the body plain: CONTENT-CODING fails, naming the body', async () => {
    const run = await runAgainst(['gzip-header-plain-body']);
    const r = run.results.find((x) => x.check.id === 'CONTENT-CODING')!;
    expect(r.status).toBe('fail');
    expect(r.examples.map((f) => f.exchange).sort()).toEqual(OPERATIONS.map((op) => PROBE.compressed(op)).sort());
    expect(r.examples[0]!.message).toMatch(/^Content-Encoding "gzip", but the body is not gzip data/);
    expect(run.verdict).toBe('non-conformant');
  }, 60_000);
});

describe('decoding as the answer arrives', () => {
  it.each([
    ['gzip', gzipSync], ['x-gzip', gzipSync], ['deflate', deflateSync], ['br', brotliCompressSync],
  ] as const)('%s, offered, is decoded; CONTENT-CODING passes', async (coding, compress) => {
    const ex = await fetchFixed({ 'content-encoding': coding }, compress(Buffer.from(RECORD)), ACCEPT_ENCODING);
    expect(ex.response!.body.toString()).toBe(RECORD);
    expect(ex.response!.contentCoding).toEqual({ codings: [coding] });
    expect(judge(ex)).toEqual([]);
  });

  it('a coding the request did not offer is left as received, and CONTENT-CODING fails', async () => {
    const br = brotliCompressSync(Buffer.from(RECORD));
    const ex = await fetchFixed({ 'content-encoding': 'br' }, br, 'gzip');
    expect(ex.response!.body.equals(br)).toBe(true);
    expect(ex.response!.contentCoding).toBeUndefined();
    expect(judge(ex)).toEqual([expect.objectContaining({ message: 'Content-Encoding "br", but the request offered "gzip"', path: 'headers.content-encoding' })]);
    const none = await fetchFixed({ 'content-encoding': 'gzip' }, gzipSync(Buffer.from(RECORD)));
    expect(judge(none)).toEqual([expect.objectContaining({ message: 'Content-Encoding "gzip", but the request sent no Accept-Encoding' })]);
  });

  it('a body that does not decode in its declared coding is kept as received and fails', async () => {
    const ex = await fetchFixed({ 'content-encoding': 'gzip' }, Buffer.from(RECORD), ACCEPT_ENCODING);
    expect(ex.response!.body.toString()).toBe(RECORD);
    expect(ex.response!.contentCoding?.error).toMatch(/^not gzip data/);
    expect(judge(ex)).toEqual([expect.objectContaining({ path: 'body', message: expect.stringMatching(/^Content-Encoding "gzip", but the body is not gzip data/) })]);
    const view = new ExchangeView(ex, { namespaces: DEFAULT_NAMESPACES });
    expect(view.text()).toEqual({ ok: false, reason: expect.stringMatching(/^the body does not decode as gzip: not gzip data/) });
  });

  it('decoding is bounded by the body cap counted after decoding: a small gzip bomb is refused as too large', async () => {
    const bomb = gzipSync(Buffer.alloc(8 * MIB));
    expect(bomb.length).toBeLessThan(64 * 1024); // far under the 1 MiB cap as received
    const ex = await fetchFixed({ 'content-encoding': 'gzip' }, bomb, ACCEPT_ENCODING, MIB);
    expect(ex.response).toBeUndefined();
    expect(ex.error).toEqual({ kind: 'too-large', message: 'response body exceeded the 1 MiB cap once decoded from gzip' });
    // Exactly at the cap decodes.
    expect(decodeContent(gzipSync(Buffer.alloc(MIB)), 'gzip', 'gzip', MIB)).toMatchObject({ ok: true });
    expect(decodeContent(gzipSync(Buffer.alloc(MIB + 1)), 'gzip', 'gzip', MIB)).toMatchObject({ ok: false, tooLarge: true });
  });

  it('past 4 stacked codings nothing is undone (each layer costs a cap of decoding): the body kept as received, CONTENT-CODING fails naming the count', async () => {
    const layers = (n: number) => { let b = Buffer.from(RECORD); for (let i = 0; i < n; i++) b = gzipSync(b); return b; };
    const within = await fetchFixed({ 'content-encoding': Array(4).fill('gzip').join(', ') }, layers(4), ACCEPT_ENCODING);
    expect([within.response!.body.toString(), judge(within)]).toEqual([RECORD, []]);
    const past = layers(5);
    const declared = Array(5).fill('gzip').join(',');
    const ex = await fetchFixed({ 'content-encoding': declared }, past, ACCEPT_ENCODING);
    expect(ex.response!.body.equals(past)).toBe(true);
    expect(ex.response!.contentCoding?.error).toBe('5 codings stacked, more than the 4 the harness undoes');
    expect(judge(ex)).toEqual([expect.objectContaining({ path: 'headers.content-encoding', actual: declared, message: 'Content-Encoding of 5 codings stacked, more than the 4 the harness undoes' })]);
    expect(new ExchangeView(ex, { namespaces: DEFAULT_NAMESPACES }).text()).toEqual({ ok: false, reason: 'the body is not decoded: 5 codings stacked, more than the 4 the harness undoes' });
  });
});

describe('Accept-Encoding as offered', () => {
  it('q=0 withdraws a coding; names are compared without case', () => {
    expect([...offeredCodings('GZIP;q=0.5, br;q=0, deflate ; q=1')]).toEqual(['gzip', 'deflate']);
    expect([...offeredCodings(undefined)]).toEqual([]);
    expect([...offeredCodings('')]).toEqual([]);
  });
});
