// A request with more headers than Node's default count (2,000) went through the proxy with the
// rest dropped from what it forwarded, while Node's parser still framed its body by a
// Transfer-Encoding or Content-Length among them: the request went on unframed, and its body reached
// the target as a request of its own that the proxy never counted or judged (request smuggling). Now
// every header goes on (the head is bounded by its 64 KiB), the body framed as it came.
import { describe, expect, it } from 'vitest';
import { proxiedRawTarget, rawExchange } from './helpers/raw-target.js';

const OK = 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}';
const SMUGGLED = 'GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n';
const FILLER = Array.from({ length: 2100 }, (_, i) => `X-F${i}: a\r\n`).join('');

describe('--proxy and a request with more than 2,000 headers', () => {
  const setup = proxiedRawTarget(() => OK);

  it.each([
    ['Transfer-Encoding: chunked', `${SMUGGLED.length.toString(16)}\r\n${SMUGGLED}\r\n0\r\n\r\n`],
    [`Content-Length: ${SMUGGLED.length}`, SMUGGLED],
  ])('framed by "%s" after them: the target parses one request, whose body is the bytes sent, and the exchange is counted', async (framing, body) => {
    const before = [setup.target.requests.length, setup.seen.length];
    const got = await rawExchange(setup.proxy.url, `POST /supportstateuser HTTP/1.1\r\nHost: x\r\n${FILLER}${framing}\r\nConnection: close\r\n\r\n${body}`);
    expect(got.match(/HTTP\/1\.1 200 OK\r\n/g)).toHaveLength(1);
    const parsed = setup.target.requests.slice(before[0]);
    expect(parsed.map((r) => [r.line, r.body.toString('latin1')])).toEqual([['POST /supportstateuser HTTP/1.1', SMUGGLED]]);
    expect(Object.keys(parsed[0]!.headers).filter((h) => h.startsWith('x-f'))).toHaveLength(2100);
    expect(setup.seen.length - before[1]!).toBe(1);
  });
});
