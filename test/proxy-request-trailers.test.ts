// The validating proxy forwards a chunked request's trailers (fields after its last chunk, RFC 9112
// 7.1.2) to the target as they came, as it does an answer's: a request is forwarded as it came.
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProxy, type ForwardedExchange, type RunningProxy } from '../lib/traffic/proxy.js';
import { rawExchange } from './helpers/raw-target.js';

describe('--proxy and a chunked request with trailers', () => {
  let target: Server;
  let proxy: RunningProxy;
  const received: string[] = [];
  const sockets = new Set<Socket>();
  const seen: ForwardedExchange[] = [];
  beforeAll(async () => {
    // Answers once the request's last chunk and its trailer section have come: the bytes are kept as received.
    target = createServer((s) => {
      sockets.add(s);
      let got = '';
      s.on('data', (d: Buffer) => {
        got += d.toString('latin1');
        if (/\r\n0\r\n(?:[^\r\n]+\r\n)*\r\n$/.test(got)) { received.push(got); s.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}'); got = ''; }
      });
      s.on('error', () => undefined);
    });
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    const port = (target.address() as { port: number }).port;
    proxy = await startProxy({ target: `http://127.0.0.1:${port}`, port: 0, maxBodyBytes: 1 << 20, timeoutMs: 30_000, onExchange: (ex) => seen.push(ex) });
  });
  afterAll(async () => {
    await proxy.close(0);
    for (const s of sockets) s.destroy();
    await new Promise((r) => target.close(r));
  });

  it('reaches the target with its body and each trailer in order and case; the exchange judges the body', async () => {
    const got = await rawExchange(proxy.url, 'POST /supportstateuser HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n'
      + '2\r\n{}\r\n0\r\nX-Checksum: abc\r\nx-other: 1\r\n\r\n');
    expect(got).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(received).toHaveLength(1);
    expect(received[0]!.slice(received[0]!.indexOf('\r\n\r\n') + 4)).toBe('2\r\n{}\r\n0\r\nX-Checksum: abc\r\nx-other: 1\r\n\r\n');
    expect(seen.map((e) => [e.answer?.status, Buffer.from(e.requestBody ?? []).toString()])).toEqual([[200, '{}']]);
  });
});
