// A client that half-closes its side once its request is sent (RFC 9112 9.6: `nc -N`, a shell's
// `exec 3<>/dev/tcp`, some embedded clients) still gets the answer through the proxy, and the
// exchange is judged: the request reached the target either way, so dropping the answer would hide
// an exchange that really happened from the client and from the judge.
import { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { proxiedRawTarget } from './helpers/raw-target.js';

const OK = 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}';

/** Writes `bytes`, half-closes, and reads until the proxy closes (30 s at most, never asserted on). */
function halfClosed(url: string, bytes: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    let got = '';
    const socket = new Socket({ allowHalfOpen: true });
    const finish = () => { clearTimeout(timer); socket.destroy(); resolve(got); };
    const timer = setTimeout(finish, 30_000);
    socket.connect(Number(port), hostname, () => socket.end(bytes));
    socket.on('data', (d: Buffer) => { got += d.toString('latin1'); });
    socket.on('close', finish);
    socket.on('error', finish);
  });
}

describe('--proxy and a client that half-closes after its request', () => {
  let unjudged = 0;
  const setup = proxiedRawTarget(() => OK, { proxy: { onUnjudged: () => { unjudged++; } } });

  it('gets the answer to each request it sent, pipelined ones included, and each exchange is judged', async () => {
    const one = 'POST /supportstateuser HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}';
    const got = await halfClosed(setup.proxy.url, `${one}${one.replace('/supportstateuser', '/user/confirmemail')}`);
    expect(got.match(/HTTP\/1\.1 200 OK\r\n/g)).toHaveLength(2);
    expect(got.endsWith('\r\n\r\n{}')).toBe(true);
    expect(setup.seen.map((e) => [e.path, e.answer?.status])).toEqual([['/supportstateuser', 200], ['/user/confirmemail', 200]]);
    expect(unjudged).toBe(0);
  });
});
