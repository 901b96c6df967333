// An answer through the proxy in several content codings (RFC 9110 8.4: `Content-Encoding: gzip, br`
// means gzip, then br) is judged decoded, as a probe's answer is; a coding it cannot decode, or bytes
// that are not what the header says, are judged as received, the coding's failure named.
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { judgeable, type ForwardedExchange } from '../lib/traffic/proxy.js';

const JSON_BODY = '{"userName":"jdoe.support"}';
const forwarded = (encoding: string, body: Buffer): ForwardedExchange => ({
  id: 'proxy.1', startedAt: 0, durationMs: 1, method: 'POST', url: 'http://t/supportstateuser', path: '/supportstateuser',
  requestHeaders: ['Host', 't', 'Accept-Encoding', 'gzip, br'],
  answer: { status: 200, rawHeaders: ['Content-Type', 'application/json', 'Content-Encoding', encoding], body: new Uint8Array(body) }, held: 0,
});

describe('the proxy judges an answer in stacked content codings decoded', () => {
  it.each([
    ['gzip, br', brotliCompressSync(gzipSync(JSON_BODY))],
    ['GZIP , identity', gzipSync(JSON_BODY)],
    ['br', brotliCompressSync(JSON_BODY)],
  ])('Content-Encoding %s: the body judged is the JSON', (encoding, body) => {
    const ex = judgeable(forwarded(encoding, body), 1 << 20);
    expect([ex.error, ex.response?.body.toString()]).toEqual([undefined, JSON_BODY]);
  });

  it('Content-Encoding zstd, which the harness does not undo: judged as received, its body not read as the record', () => {
    const ex = judgeable(forwarded('zstd', Buffer.from(JSON_BODY)), 1 << 20);
    expect([ex.error, ex.response?.headers['content-encoding'], ex.response?.contentCoding]).toEqual([undefined, 'zstd', undefined]);
  });

  it('Content-Encoding gzip, br over bytes that are not br: judged as received, the coding\'s failure named', () => {
    const ex = judgeable(forwarded('gzip, br', gzipSync(JSON_BODY)), 1 << 20);
    expect([ex.error, ex.response?.contentCoding?.codings, ex.response?.contentCoding?.error]).toEqual([undefined, ['gzip', 'br'], expect.stringMatching(/^not br data \(/)]);
  });
});
