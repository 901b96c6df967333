// The validating proxy relays an early hint (103) as sent whatever its header names: a hint named
// `constructor` or `__proto__` is a header like any other, never a 502 blamed on the target.
import { describe, expect, it } from 'vitest';
import { proxiedRawTarget, rawExchange } from './helpers/raw-target.js';

const HINT = (name: string) => `HTTP/1.1 103 Early Hints\r\n${name}: x\r\nLink: </a.css>; rel=preload\r\n\r\n`;
const OK = 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}';

describe('--proxy and early hints with names Object.prototype answers', () => {
  const setup = proxiedRawTarget((r) => `${HINT(r.headers['x-hint-name'] ?? 'X-Hint')}${OK}`);

  it.each(['Constructor', '__proto__', 'X-Hint'])('a 103 with a "%s" header reaches the client with it, then the 200; the exchange is the 200', async (name) => {
    const got = await rawExchange(setup.proxy.url, `GET /supportstateuser HTTP/1.1\r\nHost: x\r\nX-Hint-Name: ${name}\r\nConnection: close\r\n\r\n`);
    expect(got.startsWith(`${HINT(name)}HTTP/1.1 200 OK\r\n`)).toBe(true);
    expect(got.endsWith('\r\n\r\n{}')).toBe(true);
    const ex = setup.seen.at(-1)!;
    expect([ex.error, ex.answer?.status]).toEqual([undefined, 200]);
  });
});
