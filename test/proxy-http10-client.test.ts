// An HTTP/1.0 client may send no Host; the proxy forwards its request as HTTP/1.1, which requires
// one (RFC 9112 3.2), so Host names the target as it does for every other request, and a target
// that refuses a Host-less HTTP/1.1 request (Node's own server does) answers it as it would directly.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProxy, type ForwardedExchange, type RunningProxy } from '../lib/traffic/proxy.js';
import { rawExchange, startRawTarget, type RawTarget } from './helpers/raw-target.js';

const OK = 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}';

describe('--proxy and an HTTP/1.0 request with no Host', () => {
  let raw: RawTarget;
  let node: Server;
  let nodeUrl: string;
  const proxies: RunningProxy[] = [];
  const seen: ForwardedExchange[] = [];
  const proxyOf = async (target: string) => {
    const p = await startProxy({ target, port: 0, maxBodyBytes: 1 << 20, timeoutMs: 30_000, onExchange: (ex) => seen.push(ex) });
    proxies.push(p);
    return p;
  };
  beforeAll(async () => {
    raw = await startRawTarget(() => OK);
    node = createServer((_q, s) => s.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
    await new Promise<void>((r) => node.listen(0, '127.0.0.1', r));
    nodeUrl = `http://127.0.0.1:${(node.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const p of proxies) await p.close(0);
    await raw.close();
    await new Promise((r) => node.close(r));
  });

  it('reaches the target with Host naming the target, once', async () => {
    const proxy = await proxyOf(raw.url);
    const before = raw.requests.length;
    expect(await rawExchange(proxy.url, 'GET /supportstateuser HTTP/1.0\r\nAccept: */*\r\n\r\n')).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    const got = raw.requests.slice(before);
    expect(got.map((r) => [r.line, r.headers.host, r.headers.accept])).toEqual([['GET /supportstateuser HTTP/1.1', new URL(raw.url).host, '*/*']]);
  });

  it('gets from a Node target through the proxy the 200 it gets directly', async () => {
    const request = 'GET /supportstateuser HTTP/1.0\r\n\r\n';
    expect(await rawExchange(nodeUrl, request)).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    const proxy = await proxyOf(nodeUrl);
    expect(await rawExchange(proxy.url, request)).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(seen.at(-1)?.answer?.status).toBe(200);
  });
});
