// An answer through the proxy in several content codings (RFC 9110 8.4: `Content-Encoding: gzip, br`
// means gzip, then br) is judged decoded, as a probe's answer is; a coding it cannot decode, or bytes
// that are not what the header says, are still named as such.
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

  it.each([
    ['zstd', Buffer.from(JSON_BODY)],
    ['gzip, br', gzipSync(JSON_BODY)],
  ])('Content-Encoding %s over bytes it cannot undo: an error naming the coding', (encoding, body) => {
    const ex = judgeable(forwarded(encoding, body), 1 << 20);
    expect(ex.error?.message).toBe(`a body in Content-Encoding ${encoding} that cannot be decoded within the cap`);
  });
});
