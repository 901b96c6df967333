// An answer whose head came but whose body is not judged says why the body is missing, truly: the
// checks that read the body said "no response: response exceeded the … cap" of an answer whose
// status line and fields had come; the proxy dropped the head of a body it could not decode within the
// cap, called that body "cannot be decoded within the cap" whether it was too large once decoded or
// not data of its coding at all, and called any body it had not copied "past the cap".
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExchangeView } from '../lib/checks/exchange-view.js';
import { jsonAnswer } from '../lib/checks/whole-answer.js';
import { DEFAULT_NAMESPACES } from '../lib/contract/namespaces.js';
import type { Exchange } from '../lib/http/exchange.js';
import { judgeable, startProxy, type ForwardedExchange } from '../lib/traffic/proxy.js';
import { until } from './helpers/wait.js';

const MIB = 1024 * 1024;
const PAST_CAP = { kind: 'too-large', message: 'response body exceeded the 1 MiB cap' } as const;
const exchange = (extra: Partial<Exchange>): Exchange => ({
  id: 'login.post', title: 'x', origin: { source: 'probe', vouched: true }, startedAt: '', durationMs: 1,
  request: { method: 'POST', url: 'http://t/supportstateuser', headers: {} }, ...extra,
});
const view = (ex: Exchange) => new ExchangeView(ex, { namespaces: DEFAULT_NAMESPACES });

describe('a check that reads the body of an answer not judged', () => {
  it('says the body was past the cap where the head came, with no "no response"', () => {
    const ex = exchange({ error: PAST_CAP, answerHead: { status: 200, headers: { 'content-type': 'application/json' } } });
    expect(view(ex).response()).toEqual({ ok: false, reason: 'response body exceeded the 1 MiB cap' });
    expect(jsonAnswer(view(ex))).toEqual([{ message: 'response body exceeded the 1 MiB cap', path: 'response' }]);
  });

  it('says "no response" where no head came', () => {
    expect(view(exchange({ error: { kind: 'refused', message: 'connection refused by t:80' } })).response()).toEqual({ ok: false, reason: 'no response: connection refused by t:80' });
  });
});

const answered = (rawHeaders: string[], answer: Partial<NonNullable<ForwardedExchange['answer']>>): ForwardedExchange => ({
  id: 'proxy.1', startedAt: 0, durationMs: 1, method: 'POST', url: 'http://t/supportstateuser', path: '/supportstateuser',
  requestHeaders: ['Host', 't', 'Accept-Encoding', 'gzip'], answer: { status: 200, statusMessage: 'OK', rawHeaders, ...answer }, held: 0,
});
const GZIP = ['Content-Type', 'application/json', 'Content-Encoding', 'gzip'];

describe('the proxy records why an answer\'s body is not judged, its head kept', () => {
  it('a gzip body past the cap once decoded (2 MiB from a few KiB): too large, said so, the head kept', () => {
    const ex = judgeable(answered(GZIP, { body: new Uint8Array(gzipSync(Buffer.alloc(2 * MIB, 0x20))) }), MIB);
    expect([ex.response, ex.error, ex.answerHead?.status, ex.answerHead?.headers['content-encoding']])
      .toEqual([undefined, { kind: 'too-large', message: 'response body exceeded the 1 MiB cap once decoded from gzip (forwarded whole)' }, 200, 'gzip']);
  });

  it('a body that is not gzip data, under the cap: judged as received, its coding\'s failure named (no cap in it)', () => {
    const ex = judgeable(answered(GZIP, { body: new Uint8Array(Buffer.from('{"userName":"x"}')) }), MIB);
    expect([ex.error, ex.response?.status, ex.response?.contentCoding?.codings, ex.response?.headers['content-encoding']]).toEqual([undefined, 200, ['gzip'], 'gzip']);
    expect(view(ex).text()).toEqual({ ok: false, reason: expect.stringMatching(/^the body does not decode as gzip: not gzip data \(/) });
  });

  it('an answer handed over without its body copied, not past the cap: not said to be past the cap, the head kept', () => {
    const ex = judgeable(answered(GZIP, {}), MIB);
    expect([ex.error, ex.answerHead?.status]).toEqual([{ kind: 'other', message: 'the response body was not copied for judging' }, 200]);
  });

  describe('live: an answer of 2 MiB through a proxy capped at 1 MiB', () => {
    let target: Server;
    beforeAll(async () => {
      target = createServer((req, res) => { req.resume(); res.writeHead(200, { 'content-type': 'application/json' }); res.end(Buffer.alloc(2 * MIB, 0x20)); });
      await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    });
    afterAll(() => new Promise<void>((r) => target.close(() => r())));

    it('is forwarded whole, judged past the cap, its head kept', async () => {
      const seen: ForwardedExchange[] = [];
      const proxy = await startProxy({ target: `http://127.0.0.1:${(target.address() as AddressInfo).port}`, port: 0, maxBodyBytes: MIB, timeoutMs: 30_000, onExchange: (fx) => seen.push(fx) });
      try {
        expect((await (await fetch(`${proxy.url}/supportstateuser`)).arrayBuffer()).byteLength).toBe(2 * MIB);
        await until(() => seen.length === 1, 'the exchange to be handed over');
      } finally {
        await proxy.close(0);
      }
      const ex = judgeable(seen[0]!, MIB);
      expect([ex.error, ex.answerHead?.status, ex.answerHead?.headers['content-type']]).toEqual([{ kind: 'too-large', message: 'response body exceeded the 1 MiB cap (forwarded whole)' }, 200, 'application/json']);
    });
  });
});
