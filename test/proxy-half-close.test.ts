// A client that half-closes its side once its request is sent (RFC 9112 9.6: `nc -N`, a shell's
// `exec 3<>/dev/tcp`, some embedded clients) still gets the answer through the proxy, and the
// exchange is judged: the request reached the target either way, so dropping the answer would hide
// an exchange that really happened from the client and from the judge.
import { describe, expect, it } from 'vitest';
import { proxiedRawTarget, rawExchange } from './helpers/raw-target.js';

const OK = 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}';

describe('--proxy and a client that half-closes after its request', () => {
  let unjudged = 0;
  const setup = proxiedRawTarget(() => OK, { proxy: { onUnjudged: () => { unjudged++; } } });

  it('gets the answer to each request it sent, pipelined ones included, and each exchange is judged', async () => {
    const one = 'POST /supportstateuser HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}';
    const got = await rawExchange(setup.proxy.url, `${one}${one.replace('/supportstateuser', '/user/confirmemail')}`, true);
    expect(got.match(/HTTP\/1\.1 200 OK\r\n/g)).toHaveLength(2);
    expect(got.endsWith('\r\n\r\n{}')).toBe(true);
    expect(setup.seen.map((e) => [e.path, e.answer?.status])).toEqual([['/supportstateuser', 200], ['/user/confirmemail', 200]]);
    expect(unjudged).toBe(0);
  });
});
