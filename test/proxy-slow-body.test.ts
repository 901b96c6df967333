// A client that trickles a request body cannot hold a proxy connection for ever: the body must be
// whole within `bodyDeadline` of its head (the time the target held it back not counted), else the
// client gets a 408 and its connection closes, and the exchange is counted as not judged with that
// reason. Before, the proxy's server had no request timeout and the connection guard never closes
// a connection with a request in progress: a byte every few seconds held it, and as many such
// clients as the connection bound kept every honest client out.
import { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { JudgeQueue, notJudgedNote } from '../lib/cli/proxy-run.js';
import { bodyDeadline, type Unjudged } from '../lib/traffic/proxy.js';
import { proxiedRawTarget } from './helpers/raw-target.js';
import { until } from './helpers/wait.js';

const OK = 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}';

/** A client that sends a request head announcing 1000 bytes of body, then a byte every 50 ms
 *  (never idle long, never whole), reading everything it is sent until the proxy closes. */
function trickler(url: string) {
  const { hostname, port } = new URL(url);
  const socket = new Socket();
  let got = '';
  let closed = false;
  let sent = 0;
  const drip = setInterval(() => { if (socket.writable && sent < 900) { socket.write(' '); sent++; } }, 50);
  socket.on('data', (d: Buffer) => { got += d.toString('latin1'); });
  socket.on('error', () => undefined);
  socket.on('close', () => { closed = true; clearInterval(drip); });
  socket.connect(Number(port), hostname, () => socket.write('POST /supportstateuser HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{'));
  return { socket, got: () => got, closed: () => closed, stop: () => { clearInterval(drip); socket.destroy(); } };
}

describe('--proxy and clients that trickle a request body', () => {
  const unjudged: Unjudged[] = [];
  // Room for two connections; a body due whole 1 s after its head (--timeout 1 s too).
  const setup = proxiedRawTarget(() => OK, { proxy: { timeoutMs: 1000, connections: { max: 2, bodyMs: 1000 }, onUnjudged: (why) => { unjudged.push(why); } } });

  it('two trickling clients holding every connection get a 408 naming the deadline and are closed; the target gets no whole request of theirs, and an honest client is served', async () => {
    const clients = [trickler(setup.proxy.url), trickler(setup.proxy.url)];
    try {
      await until(() => clients.every((c) => c.closed()), 'the trickling clients to be closed');
      for (const c of clients) {
        expect(c.got()).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
        expect(c.got()).toContain("\r\nconformance proxy: the request's body was not whole 1 s after its head\n");
      }
      expect([unjudged, setup.target.requests.length]).toEqual([['request-timeout', 'request-timeout'], 0]);
      const r = await fetch(`${setup.proxy.url}/supportstateuser`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"userName":"jdoe.support"}' });
      expect([r.status, await r.text(), setup.seen.length]).toEqual([200, '{}', 1]);
    } finally {
      for (const c of clients) c.stop();
    }
  });

  it('is --timeout when that is longer, and 60 s by default', () => {
    expect([bodyDeadline(10_000), bodyDeadline(90_000), bodyDeadline(1000, 500)]).toEqual([60_000, 90_000, 1000]);
  });

  it('the reports name the reason', () => {
    const q = new JudgeQueue(10, 100, () => undefined);
    q.notJudged('request-timeout');
    expect(notJudgedNote(q, { roomBytes: 100, timeoutMs: 10_000, judgeStopped: false })).toBe("1 of 1 exchange(s) forwarded were not judged (0% judged): the client had not sent its request's body whole 60 s after its head: answered 408 and its connection closed; they streamed through unjudged");
  });
});

describe('--proxy in front of a target that knows nothing of Expect, and clients expecting its 100', () => {
  const unjudged: Unjudged[] = [];
  // Room for two connections; --timeout and the body's deadline 1 s. The target never sends a 100:
  // it answers once a request's body is whole.
  const setup = proxiedRawTarget(() => OK, { proxy: { timeoutMs: 1000, connections: { max: 2, bodyMs: 1000 }, onUnjudged: (why) => { unjudged.push(why); } } });

  it('two clients expecting a 100 the target never sends (it knows nothing of Expect) and sending no body, on every connection: past --timeout the wait is theirs, so each gets a 408 and is closed, and an honest client is served', async () => {
    const waiting = [0, 1].map(() => {
      const socket = new Socket();
      const c = { got: '', closed: false };
      socket.on('data', (d: Buffer) => { c.got += d.toString('latin1'); });
      socket.on('error', () => undefined);
      socket.on('close', () => { c.closed = true; });
      socket.connect(Number(new URL(setup.proxy.url).port), '127.0.0.1', () => socket.write('POST /supportstateuser HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n'));
      return { socket, c };
    });
    try {
      await until(() => waiting.every((w) => w.c.closed), 'the clients waiting for a 100 to be closed');
      for (const { c } of waiting) expect(c.got).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
      expect(unjudged).toEqual(['request-timeout', 'request-timeout']);
      const r = await fetch(`${setup.proxy.url}/supportstateuser`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"userName":"jdoe.support"}' });
      expect([r.status, await r.text()]).toEqual([200, '{}']);
    } finally {
      for (const w of waiting) w.socket.destroy();
    }
  });
});
