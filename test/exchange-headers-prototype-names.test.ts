// A header whose lower-cased name is one Object.prototype answers (`constructor`) is kept as the
// peer sent it: the proxy, a HAR and the judging reference all map raw header lists through
// exchangeHeaders, and a report (and replay.sh's curl line) shows what that map holds.
import { describe, expect, it } from 'vitest';
import { exchangeHeaders } from '../lib/http/exchange.js';
import { judgeable } from '../lib/traffic/proxy.js';

describe('exchangeHeaders with a name Object.prototype answers', () => {
  it('keeps "Constructor: x" as the value x, and repeats joined in order', () => {
    expect(exchangeHeaders([['Constructor', 'x']])).toEqual({ constructor: 'x' });
    expect(exchangeHeaders([['constructor', 'x'], ['Content-Type', 'a/b'], ['CONSTRUCTOR', 'y']])).toEqual({ constructor: 'x, y', 'content-type': 'a/b' });
  });

  it('a proxied exchange keeps such a header on both sides as sent', () => {
    const ex = judgeable({
      id: 'proxy.1', startedAt: 0, durationMs: 1, method: 'GET', url: 'http://t/x', path: '/x',
      requestHeaders: ['Host', 't', 'Constructor', 'req'], answer: { status: 200, rawHeaders: ['constructor', 'res', 'Content-Length', '0'], body: new Uint8Array(0) }, held: 0,
    }, 1024);
    expect(ex.request.headers.constructor).toBe('req');
    expect(ex.response?.headers.constructor).toBe('res');
  });
});
