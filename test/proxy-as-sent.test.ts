// The validating proxy forwards what a raw client sent and what a raw target answered as HTTP/1.1
// lets a proxy: a bodiless POST goes on with no framing (Node chunked it), an absolute form's path
// byte for byte (the URL parser resolved `%2e%2e`), an answer announcing trailers it cannot carry
// (a HEAD's, one to an HTTP/1.0 client) is relayed, not a 502, a HEAD's Content-Length past the cap
// is judged as the empty body it has, `Expect: 100-continue` gets the target's 100, not the proxy's,
// and any other expectation reaches the target, whose answer the client gets (Node's server says 417).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { judgeable, startProxy, type RunningProxy } from '../lib/traffic/proxy.js';
import { expectingExchange, proxiedRawTarget, rawExchange } from './helpers/raw-target.js';

const CLOSE = 'Host: x\r\nConnection: close\r\n';
const ANSWERS: Record<string, string> = {
  '/head-trailer': 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nTrailer: X-Sum\r\nTransfer-Encoding: chunked\r\n\r\n',
  '/chunked-trailer': 'HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\nTrailer: X-Sum\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\nX-Sum: 3\r\n\r\n',
  '/head-large': 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 99999999\r\n\r\n',
};
const OK = 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}';

describe('--proxy forwards requests and answers as they came', () => {
  const setup = proxiedRawTarget((r) => ANSWERS[r.line.split(' ')[1]!] ?? OK);

  it.each(['POST', 'PUT', 'PATCH'])('a %s with no body reaches the target with no Transfer-Encoding or Content-Length', async (method) => {
    expect(await rawExchange(setup.proxy.url, `${method} /supportstateuser HTTP/1.1\r\n${CLOSE}\r\n`)).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    const got = setup.target.requests.at(-1)!;
    expect([got.line, got.headers['transfer-encoding'], got.headers['content-length']]).toEqual([`${method} /supportstateuser HTTP/1.1`, undefined, undefined]);
  });

  it('an absolute form\'s path and query reach the target byte for byte', async () => {
    expect(await rawExchange(setup.proxy.url, `GET http://elsewhere.example/a/%2e%2e/b/./c?y='q HTTP/1.1\r\n${CLOSE}\r\n`)).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(setup.target.requests.at(-1)!.line).toBe("GET /a/%2e%2e/b/./c?y='q HTTP/1.1");
  });

  it('a HEAD\'s answer announcing trailers reaches the client, not a 502', async () => {
    const got = await rawExchange(setup.proxy.url, `HEAD /head-trailer HTTP/1.1\r\n${CLOSE}\r\n`);
    expect(got.split('\r\n')[0]).toBe('HTTP/1.1 200 OK');
    expect(got).toMatch(/\r\ncontent-type: application\/json\r\n/);
  });

  it('an HTTP/1.0 client gets a chunked answer\'s body whole, though it cannot take its trailers', async () => {
    const got = await rawExchange(setup.proxy.url, 'GET /chunked-trailer HTTP/1.0\r\nHost: x\r\n\r\n');
    expect([got.split('\r\n')[0], got.slice(got.indexOf('\r\n\r\n') + 4)]).toEqual(['HTTP/1.1 200 OK', 'abc']);
  });

  it('an Expect other than 100-continue reaches the target as sent, and the client gets the target\'s answer, not a 417 of the proxy\'s', async () => {
    const before = setup.seen.length;
    const got = await rawExchange(setup.proxy.url, `POST /supportstateuser HTTP/1.1\r\nExpect: Bar-Baz\r\nContent-Length: 2\r\n${CLOSE}\r\n{}`);
    expect(got).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    const at = setup.target.requests.at(-1)!;
    expect([at.line, at.headers.expect, at.body.toString()]).toEqual(['POST /supportstateuser HTTP/1.1', 'Bar-Baz', '{}']);
    expect(setup.seen.length).toBe(before + 1);
  });

  it('a HEAD\'s answer with a Content-Length past the body cap is judged as the empty body it has', async () => {
    const before = setup.seen.length;
    expect(await rawExchange(setup.proxy.url, `HEAD /head-large HTTP/1.1\r\n${CLOSE}\r\n`)).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    const ex = judgeable(setup.seen.slice(before).at(-1)!, 1 << 20);
    expect([ex.error, ex.response?.status, ex.response?.body.length]).toEqual([undefined, 200, 0]);
  });
});

const expecting = (url: string, path: string, body: string) => expectingExchange(url, `PUT ${path} HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`, body);

describe('--proxy and Expect: 100-continue', () => {
  let target: Server;
  let proxy: RunningProxy;
  const bodies: string[] = [];
  beforeAll(async () => {
    // A target that refuses /refused on its head alone, and takes the body of any other after its 100.
    target = createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => { body += d.toString(); });
      req.on('end', () => { bodies.push(body); res.writeHead(200, { 'content-length': '2' }).end('{}'); });
    });
    target.on('checkContinue', (req, res) => {
      if (req.url === '/refused') { res.writeHead(401, { 'content-length': '0' }).end(); return; }
      res.writeContinue();
      target.emit('request', req, res);
    });
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    proxy = await startProxy({ target: `http://127.0.0.1:${(target.address() as AddressInfo).port}`, port: 0, maxBodyBytes: 1 << 20, timeoutMs: 30_000, onExchange: () => undefined });
  });
  afterAll(async () => { await proxy.close(0); await new Promise((r) => target.close(r)); });

  it('a target that refuses on the head: the client gets its 401 with no 100 before it', async () => {
    expect((await expecting(proxy.url, '/refused', '{}')).split('\r\n')[0]).toBe('HTTP/1.1 401 Unauthorized');
  });

  it('a target that sends 100: the client gets one 100, sends its body, and the target has it', async () => {
    const got = await expecting(proxy.url, '/upload', '{"a":1}');
    expect([got.split('HTTP/1.1 100 Continue').length - 1, /HTTP\/1\.1 200 OK\r\n/.test(got), bodies.at(-1)]).toEqual([1, true, '{"a":1}']);
  });
});
