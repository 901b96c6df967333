// A client that keeps sending its chunked body after its answer is whole (the target answered
// without waiting for it): what comes then is forwarded, but no longer copied. It was: each chunk
// took room for a copy already handed to the judge, and nothing gave it back, so a few such
// uploads shut the room for good and no later exchange was judged.
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
/** Called as the target receives body bytes. */
let onBody = (): void => undefined;
beforeAll(async () => {
  // Answers at once, before any body comes, and reads the body to its end.
  target = createServer((req, res) => {
    received.set(req.url!, 0);
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
  const { hostname, port } = new URL(proxy.url);
  const socket = new Socket();
  try {
    let got = '';
    socket.on('data', (d: Buffer) => { got += d.toString('latin1'); });
    socket.on('error', () => undefined);
    await new Promise<void>((r) => socket.connect(Number(port), hostname, r));
    socket.write('POST /late HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nfirst\r\n');
    await until(() => got.endsWith('\r\n\r\nok'), 'the answer to reach the client whole');
    await until(() => seen.length === 1 && queue.waiting === 0, 'the exchange to be judged');
    // Each piece once the target has the one before: the proxy's side to the target never fills (a
    // write to it that Node's client holds then is never drained, the response being over).
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
