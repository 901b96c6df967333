// A client that sends its request's head and pauses before its body (a slow uploader, a client
// thinking): the proxy forwards the head at once, as it came, so the target sees the request while
// the client thinks. Node's client writes a head with the first bytes of its body, so the target saw
// an empty connection until the body came (its own head timeout running on it); with Expect the head
// went at once, as RFC 9110 10.1.1 needs.
import { createServer, type Server } from 'node:http';
import { Socket, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startProxy } from '../lib/traffic/proxy.js';
import { until } from './helpers/wait.js';

let target: Server;
let targetUrl = '';
/** Request paths whose head the target has, and the bodies it read. */
const heads = new Set<string>();
const bodies = new Map<string, string>();
beforeAll(async () => {
  target = createServer((req, res) => {
    heads.add(req.url!);
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => { body += d; });
    req.on('end', () => { bodies.set(req.url!, body); res.end('ok'); });
  });
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
});
afterAll(async () => { target.closeAllConnections(); await new Promise((r) => target.close(r)); });

it('forwards a request head whose body has not come yet at once, then the body, and the client gets its answer', async () => {
  const proxy = await startProxy({ target: targetUrl, port: 0, maxBodyBytes: 1 << 20, timeoutMs: 30_000, onExchange: () => undefined });
  const socket = new Socket();
  try {
    const { port } = new URL(proxy.url);
    await new Promise<void>((resolve, reject) => { socket.once('error', reject); socket.connect(Number(port), '127.0.0.1', resolve); });
    let answer = '';
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => { answer += d; });
    socket.write('POST /thinking HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n');
    await until(() => heads.has('/thinking'), 'the target to have the head before any of its body');
    expect(bodies.has('/thinking')).toBe(false);
    socket.write('{}');
    await until(() => answer.includes('\r\n\r\nok'), 'the answer');
    expect([bodies.get('/thinking'), answer.split('\r\n')[0]]).toEqual(['{}', 'HTTP/1.1 200 OK']);
  } finally {
    socket.destroy();
    await proxy.close(0);
  }
});
