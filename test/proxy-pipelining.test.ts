// Pipelined requests through the validating proxy are forwarded one at a time, each once the answer
// before it has ended, as a target reading the connection itself takes them. Node hands the proxy
// every request it has parsed at once: a client pipelining thousands of requests without reading
// its answers made as many exchanges in flight (and connections to the target) at once, hundreds of
// MB from one connection. Past MAX_PIPELINED waiting, or 1 MiB of their heads, the connection is cut;
// nothing waiting was forwarded. Malformed bytes behind a request not yet answered close the
// connection: a 400 written then went out as that request's answer, or inside its body.
import { createServer, Socket, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProxy, type RunningProxy } from '../lib/traffic/proxy.js';
import { rawExchange } from './helpers/raw-target.js';
import { until } from './helpers/wait.js';

describe('--proxy and pipelined requests', () => {
  let target: Server;
  let proxy: RunningProxy;
  /** What the target saw and did, in order: "req /n" when it parsed a request, "ans /n" when it answered. */
  const log: string[] = [];
  const sockets = new Set<Socket>();
  let unjudged = 0;
  beforeAll(async () => {
    // Answers each request a few milliseconds after parsing it (a request per head: these have no body), but /big ones.
    target = createServer((s) => {
      sockets.add(s);
      let buf = '';
      s.on('data', (d: Buffer) => {
        buf += d.toString('latin1');
        for (let end = buf.indexOf('\r\n\r\n'); end >= 0; end = buf.indexOf('\r\n\r\n')) {
          const path = buf.slice(0, end).split(' ')[1]!;
          buf = buf.slice(end + 4);
          log.push(`req ${path}`);
          // A large head's answer is held: the heads behind it wait however slowly the proxy reads them.
          if (!path.startsWith('/big')) setTimeout(() => { log.push(`ans ${path}`); s.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}'); }, 5);
        }
      });
      s.on('error', () => undefined);
    });
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    proxy = await startProxy({ target: `http://127.0.0.1:${(target.address() as { port: number }).port}`, port: 0, maxBodyBytes: 1 << 20, timeoutMs: 30_000, onExchange: () => undefined, onUnjudged: () => { unjudged++; } });
  });
  afterAll(async () => {
    await proxy.close(0);
    for (const s of sockets) s.destroy();
    await new Promise((r) => target.close(r));
  });

  it('three pipelined requests: each answered in order, each forwarded after the answer before it', async () => {
    log.length = 0;
    const req = (n: number) => `GET /${n} HTTP/1.1\r\nHost: x\r\n${n === 3 ? 'Connection: close\r\n' : ''}\r\n`;
    const got = await rawExchange(proxy.url, `${req(1)}${req(2)}${req(3)}`);
    expect(got.match(/HTTP\/1\.1 200 OK\r\n/g)).toHaveLength(3);
    expect(log).toEqual(['req /1', 'ans /1', 'req /2', 'ans /2', 'req /3', 'ans /3']);
  });

  it('a client pipelining 5,000 requests and reading nothing: one exchange in flight at a time, then the connection is cut', async () => {
    log.length = 0;
    const before = unjudged;
    const client = new Socket();
    client.on('error', () => undefined);
    let most = 0;
    const watch = setInterval(() => { most = Math.max(most, proxy.inFlight()); }, 1);
    client.connect(proxy.port, '127.0.0.1', () => client.write('GET /flood HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(5000)));
    client.pause(); // never reads (so it never hears of the cut either: the proxy's count says it)
    try {
      await until(() => unjudged > before, 'the proxy to cut the connection and count its exchange in flight');
    } finally {
      clearInterval(watch);
      client.destroy();
    }
    expect(most).toBeLessThanOrEqual(1);
    // What reached the target: at most the one in flight when the waiting ones passed the bound.
    expect(log.filter((l) => l.startsWith('req')).length).toBeLessThanOrEqual(1);
    expect(unjudged - before).toBe(1);
    // Still serving.
    expect(await rawExchange(proxy.url, 'GET /after HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
  });

  it('heads of 60 KiB pipelined, more than 1 MiB of them waiting: the connection is cut, none of those waiting forwarded', async () => {
    log.length = 0;
    const before = unjudged;
    const head = (n: number) => `GET /big${n} HTTP/1.1\r\nHost: x\r\nX-Pad: ${'a'.repeat(60 * 1024)}\r\n\r\n`;
    const client = new Socket();
    client.on('error', () => undefined);
    client.connect(proxy.port, '127.0.0.1', () => client.write(Array.from({ length: 20 }, (_, n) => head(n)).join('')));
    client.pause();
    try {
      await until(() => unjudged > before, 'the proxy to cut the connection');
    } finally {
      client.destroy();
    }
    expect(log.filter((l) => l.startsWith('req')).length).toBeLessThanOrEqual(1);
    expect(await rawExchange(proxy.url, 'GET /after HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
  });

  it('malformed bytes after a request whose answer is not yet written: the connection is closed, no 400 in place of (or inside) that answer', async () => {
    const got = await rawExchange(proxy.url, 'GET /first HTTP/1.1\r\nHost: x\r\n\r\nPOST /second HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab');
    expect(got).not.toMatch(/400 Bad Request/);
    // Alone on its connection, the same malformed request gets its 400; a head past the bound, 431.
    expect(await rawExchange(proxy.url, 'POST /second HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab')).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(await rawExchange(proxy.url, `GET /x HTTP/1.1\r\nHost: x\r\nX-Pad: ${'a'.repeat(65 * 1024)}\r\n\r\n`)).toMatch(/^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
  });
});
