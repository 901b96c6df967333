// A client that keeps sending its chunked body after its answer is whole (the target answered
// without waiting for it): what comes then is forwarded, but no longer copied. It was: each chunk
// took room for a copy already handed to the judge, and nothing gave it back, so a few such
// uploads shut the room for good and no later exchange was judged. And it is forwarded at the pace
// the target takes it, to its end, or read and dropped once the target's side is closed: Node's
// client stops relaying its socket's drain once the answer is whole, so an upload that filled that
// side stalled there, and its connection with it, until the connection guard closed it (~65 s).
import { createServer, type Server } from 'node:http';
import { Socket, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { JudgeQueue } from '../lib/cli/proxy-run.js';
import { startProxy, type ForwardedExchange, type Unjudged } from '../lib/traffic/proxy.js';
import { until } from './helpers/wait.js';

const KIB = 1024;
/** The room for copies: twice the honest upload below. */
const ROOM = 2048 * KIB;
/** Sent after the answer: more than half the room, so what it took leaves the honest upload none. */
const LATE = 1536 * KIB;
const HONEST = 1024 * KIB;

let target: Server;
let targetUrl = '';
/** Body bytes the target received, by request path. */
const received = new Map<string, number>();
/** Request paths whose body the target read to its end. */
const ended = new Set<string>();
/** Called as the target receives body bytes. */
let onBody = (): void => undefined;
beforeAll(async () => {
  // Answers at once, before any body comes, and reads the body to its end; `/refuse` it refuses
  // with 413, closing the connection without reading it (as a server refusing an upload may).
  target = createServer((req, res) => {
    if (req.url === '/refuse') { res.writeHead(413, { connection: 'close', 'content-length': 9 }); res.end('too large'); return; }
    received.set(req.url!, 0);
    req.on('end', () => ended.add(req.url!));
    req.on('data', (d: Buffer) => { received.set(req.url!, received.get(req.url!)! + d.length); onBody(); });
    res.end('ok');
  });
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
});
afterAll(async () => { target.closeAllConnections(); await new Promise((r) => target.close(r)); });

it('a chunked body that keeps coming after its answer is forwarded whole, gives the room back once judged, and a later upload is judged', async () => {
  const queue = new JudgeQueue(1000, ROOM, () => queueMicrotask(() => queue.judged()));
  const seen: ForwardedExchange[] = [];
  const unjudged: Unjudged[] = [];
  const proxy = await startProxy({ target: targetUrl, port: 0, maxBodyBytes: ROOM, timeoutMs: 30_000, room: queue, onExchange: (ex) => { seen.push(ex); queue.offer(ex); }, onUnjudged: (why) => { unjudged.push(why); } });
  const { socket } = await answeredEarly(proxy.url, '/late', 'ok');
  try {
    await until(() => seen.length === 1 && queue.waiting === 0, 'the exchange to be judged');
    // Each piece once the target has the one before, so every piece comes after the judging.
    const piece = Buffer.alloc(8 * KIB, 0x61);
    for (let sent = 0; sent < LATE; sent += piece.length) {
      const there = new Promise<void>((resolve) => { onBody = () => { if (received.get('/late') === 5 + sent + piece.length) resolve(); }; });
      socket.write(Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')]));
      await there;
    }
    socket.write('0\r\n\r\n');
    const honest = await fetch(`${proxy.url}/honest`, { method: 'POST', body: Buffer.alloc(HONEST, 0x62) });
    expect(await honest.text()).toBe('ok');
    await until(() => seen.length + unjudged.length === 2 && queue.waiting === 0, 'the honest upload to be judged or counted');
    expect({ held: queue.held, judged: seen.map((ex) => ex.path), unjudged }).toEqual({ held: 0, judged: ['/late', '/honest'], unjudged: [] });
  } finally {
    socket.destroy();
    await proxy.close(0);
  }
});

/** A raw client on one connection: sends a request head announcing a chunked body and its first
 *  chunk, and waits for the whole answer (`answer` its body); what came is `got()`. */
async function answeredEarly(proxyUrl: string, path: string, answer: string): Promise<{ socket: Socket; got: () => string }> {
  const { hostname, port } = new URL(proxyUrl);
  const socket = new Socket();
  let got = '';
  socket.on('data', (d: Buffer) => { got += d.toString('latin1'); });
  socket.on('error', () => undefined);
  await new Promise<void>((r) => socket.connect(Number(port), hostname, r));
  socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nfirst\r\n`);
  await until(() => got.endsWith(`\r\n\r\n${answer}`), 'the answer to reach the client whole');
  return { socket, got: () => got };
}

/** `answeredEarly`, then `bytes` more of body in one write and its end, then `GET /next` on the
 *  same connection: what came after the first answer, once that answer is whole. */
async function uploadAfterAnswer(proxyUrl: string, path: string, answer: string, bytes: number): Promise<string> {
  const { socket, got } = await answeredEarly(proxyUrl, path, answer);
  try {
    socket.write(Buffer.concat([Buffer.from(`${bytes.toString(16)}\r\n`), Buffer.alloc(bytes, 0x61), Buffer.from('\r\n0\r\n\r\n')]));
    const before = got().length;
    socket.write('GET /next HTTP/1.1\r\nHost: x\r\n\r\n');
    await until(() => got().slice(before).endsWith('\r\n\r\nok'), 'the answer to the next request on the connection');
    return got().slice(before);
  } finally {
    socket.destroy();
  }
}

it('a body larger than the proxy\'s side to the target, sent after the answer the target gave at once, reaches the target whole with its end, and the connection serves its next request', async () => {
  const proxy = await startProxy({ target: targetUrl, port: 0, maxBodyBytes: ROOM, timeoutMs: 30_000, onExchange: () => undefined });
  try {
    const next = await uploadAfterAnswer(proxy.url, '/onward', 'ok', 4 * 1024 * KIB);
    expect([received.get('/onward'), ended.has('/onward'), next.split('\r\n')[0]]).toEqual([5 + 4 * 1024 * KIB, true, 'HTTP/1.1 200 OK']);
  } finally {
    await proxy.close(0);
  }
});

it('a body sent after the target refused it with 413 and closed its connection is read and dropped by the proxy, and the client\'s connection serves its next request', async () => {
  const proxy = await startProxy({ target: targetUrl, port: 0, maxBodyBytes: ROOM, timeoutMs: 30_000, onExchange: () => undefined });
  try {
    const next = await uploadAfterAnswer(proxy.url, '/refuse', 'too large', 4 * 1024 * KIB);
    expect(next.split('\r\n')[0]).toBe('HTTP/1.1 200 OK');
  } finally {
    await proxy.close(0);
  }
});
