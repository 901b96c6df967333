// An HTTP/1.1 request without Host gets the proxy's 400 (RFC 9112 3.2), and nothing pipelined behind
// it is forwarded. Node's server answered it 400 itself (requireHostHeader) and went on parsing: the
// request behind reached the target, its answer queued behind the 400 that closed the connection,
// never counted or judged, its exchange in flight for good (600 such held the proxy's heads bound:
// every later client 503). An HTTP/1.0 request needs no Host and is forwarded.
import { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { proxiedRawTarget, rawExchange } from './helpers/raw-target.js';
import { until } from './helpers/wait.js';

const OK = 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}';
const LOGIN = 'POST /supportstateuser HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}';

describe('--proxy and a request without Host', () => {
  const p = proxiedRawTarget(() => OK);

  it('answers an HTTP/1.1 one 400 naming RFC 9112 3.2, forwards nothing pipelined behind it, and ends every exchange', async () => {
    const got = await rawExchange(p.proxy.url, `GET /nohost HTTP/1.1\r\n\r\n${LOGIN}`);
    expect(got).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n[^]*connection: close\r\n[^]*conformance proxy: an HTTP\/1\.1 request without a Host field \(RFC 9112 3\.2\) is not forwarded\n/i);
    expect(got.match(/HTTP\/1\.1 \d{3}/g)).toEqual(['HTTP/1.1 400']);
    expect(p.target.requests).toEqual([]);
    expect(p.proxy.refused()).toBe(1);
    await until(() => p.proxy.inFlight() === 0, 'no exchange left in flight');
    expect(p.seen).toEqual([]);
  });

  it('ends the exchange of an answer held behind one that closed the connection, once the connection closes', async () => {
    // A Host-less request in the middle of a pipeline: the one before it is answered, it is refused,
    // the one behind is never forwarded.
    const client = new Socket();
    let got = '';
    client.on('data', (d: Buffer) => { got += d.toString('latin1'); });
    const closed = new Promise((r) => client.on('close', r));
    client.connect(p.proxy.port, '127.0.0.1', () => client.write(`GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\n\r\nGET /c HTTP/1.1\r\nHost: x\r\n\r\n`));
    await closed;
    expect(got.match(/HTTP\/1\.1 \d{3}/g)).toEqual(['HTTP/1.1 200', 'HTTP/1.1 400']);
    expect(p.target.requests.map((r) => r.line)).toEqual(['GET /a HTTP/1.1']);
    await until(() => p.proxy.inFlight() === 0, 'no exchange left in flight');
  });

  it('forwards an HTTP/1.0 request without Host', async () => {
    const before = p.target.requests.length;
    expect(await rawExchange(p.proxy.url, 'GET /old HTTP/1.0\r\n\r\n')).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(p.target.requests.slice(before).map((r) => r.line)).toEqual(['GET /old HTTP/1.1']);
  });
});
