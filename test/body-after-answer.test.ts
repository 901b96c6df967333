// A request answered before its body has all come (RFC 9110 allows it: the reference's 405 to a PUT,
// a target's 413 the proxy forwards, the rest of the upload going on at the target's pace) is still in
// progress while its body comes (lib/http/connection-guard.ts). The guard took its finished answer as
// the connection waiting for its next head: an honest client still uploading steadily was closed as
// idle (keepAliveMs + headMs after its answer: 65 s at the proxy's defaults), and at the bound it was
// the first closed for a newcomer, before a peer trickling its body.
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { ConnectionGuard, MIN_RATE } from '../lib/http/connection-guard.js';
import { startProxy } from '../lib/traffic/proxy.js';
import { honest, HONEST_BODY } from './helpers/honest-client.js';
import { countingClient } from './helpers/answer-counting-client.js';
import { guardedServers, type GuardedServer } from './helpers/guarded-servers.js';
import { until } from './helpers/wait.js';

/** The guard's sweeps, each let through or held (`mockImplementation`), and counted. */
const spySweeps = () => vi.spyOn(ConnectionGuard.prototype as unknown as { sweep(): void }, 'sweep');

const put = (length: number) => `PUT /supportstateuser HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;
const WHOLE = `POST /supportstateuser HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(HONEST_BODY)}\r\n\r\n${HONEST_BODY}`;

describe('the connection guard, a request answered before its body has come', () => {
  it('never closes the connection as idle while the body comes after the answer: its next request is answered', async () => {
    const sweeps = spySweeps();
    // Answered at once, the body read and dropped after.
    const server: HttpServer = createServer((req, res) => { req.resume(); res.end('{}'); });
    server.keepAliveTimeout = 60_000;
    // Idle past 200 ms after an answer: closed (a sweep each 25 ms).
    const guard = new ConnectionGuard(server, { headMs: 100, keepAliveMs: 100 });
    server.on('request', guard.listener(() => undefined));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const length = 1_000_000;
    const up = countingClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, put(length));
    let sent = 0;
    // 100 bytes each 20 ms (5 KB/s), steadily.
    const feed = setInterval(() => { up.socket.write('x'.repeat(100)); sent += 100; }, 20);
    try {
      await until(() => up.answers() === 1 || up.closed, 'the early answer');
      // 30 sweeps: at least 725 ms, past the idle bound of 200 ms.
      const from = sweeps.mock.calls.length;
      await until(() => sweeps.mock.calls.length >= from + 30 || up.closed, 'thirty sweeps of the guard');
      const during = { closed: up.closed, idle: guard.counts.idle };
      clearInterval(feed);
      up.socket.write(`${'x'.repeat(length - sent)}${WHOLE}`);
      await until(() => up.answers() === 2 || up.closed, 'the next request\'s answer');
      expect({ during, answers: up.answers() }).toEqual({ during: { closed: false, idle: 0 }, answers: 2 });
    } finally {
      clearInterval(feed);
      sweeps.mockRestore();
      up.socket.destroy();
      await new Promise((r) => server.close(r));
    }
  });
});


/** A target answering a PUT 413 at once, its body read and dropped after; anything else `{}` once its body is whole. */
async function earlyTarget(): Promise<HttpServer> {
  const target = createServer((req, res) => {
    req.resume();
    if (req.method === 'PUT') res.writeHead(413, { 'content-type': 'text/plain' }).end('too large');
    else req.on('end', () => res.end('{}'));
  });
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
  return target;
}

const LISTENERS: Record<string, (max: number) => Promise<GuardedServer>> = {
  ...guardedServers('body-after-answer-'),
  proxy: async (max) => {
    const target = await earlyTarget();
    const p = await startProxy({ target: `http://127.0.0.1:${(target.address() as AddressInfo).port}`, port: 0, maxBodyBytes: 1 << 20, timeoutMs: 30_000, onExchange: () => undefined, connections: { max } });
    return {
      url: p.url,
      connections: p.connections,
      close: async () => { await p.close(0); target.closeAllConnections(); await new Promise((r) => target.close(r)); },
    };
  },
};

/** A body of 8 000 bytes: its first 100 with its head, PART (in a window of one second: four times
 *  the minimum rate) once the guard's sweeps are held, the rest after. */
const LENGTH = 8000;
const PART = 4 * MIN_RATE;

describe.each(Object.keys(LISTENERS))('the %s at its bound of 2, a request answered before its body has come', (name) => {
  it('closes for a newcomer a peer trickling its body after its answer, not an honest client uploading its body after its answer at four times the minimum rate: that client\'s next request is answered', async () => {
    const sweeps = spySweeps();
    const s = await LISTENERS[name]!(2);
    const upload = countingClient(s.url, `${put(LENGTH)}${'x'.repeat(100)}`);
    let peer: ReturnType<typeof countingClient> | undefined;
    try {
      await until(() => upload.answers() === 1 || upload.closed, 'the upload\'s early answer');
      peer = countingClient(s.url, `${put(1000)}{`);
      await until(() => peer!.answers() === 1 || peer!.closed, 'the peer\'s early answer');
      // Two sweeps since both answers; then the guard's clock held, the window one period (1 s).
      const from = sweeps.mock.calls.length;
      await until(() => sweeps.mock.calls.length >= from + 2, 'two sweeps of the guard');
      sweeps.mockImplementation(() => undefined);
      const socket = [...(sweeps.mock.contexts.at(-1) as { used: Map<Socket, unknown> }).used.keys()].find((x) => x.remotePort === upload.socket.localPort)!;
      const before = socket.bytesRead;
      upload.socket.write('x'.repeat(PART));
      await until(() => socket.bytesRead === before + PART || upload.closed, 'the upload\'s part to be read');
      const newcomer = await honest(s.url);
      await until(() => peer!.closed || upload.closed, 'a connection to be closed for the newcomer');
      const closed = { peer: peer.closed, upload: upload.closed };
      upload.socket.write(`${'x'.repeat(LENGTH - 100 - PART)}${WHOLE}`);
      await until(() => upload.answers() === 2 || upload.closed, 'the upload\'s next answer');
      const { stalled, evicted, refused } = s.connections();
      expect({ newcomer, closed, answers: upload.answers(), stalled, evicted, refused })
        .toEqual({ newcomer: 200, closed: { peer: true, upload: false }, answers: 2, stalled: 1, evicted: 0, refused: 0 });
    } finally {
      sweeps.mockRestore();
      upload.socket.destroy();
      peer?.socket.destroy();
      await s.close();
    }
  });
});

describe('the proxy, a body still coming after the target\'s early answer', () => {
  it('closes the connection once the body is not whole by its deadline from its head (bodyMs), as for a body not answered yet', async () => {
    const target = await earlyTarget();
    // The body deadline 300 ms; a head within 60 s (the guard's idle bound, 65 s, never reached here).
    const p = await startProxy({ target: `http://127.0.0.1:${(target.address() as AddressInfo).port}`, port: 0, maxBodyBytes: 1 << 20, timeoutMs: 300, onExchange: () => undefined, connections: { bodyMs: 300 } });
    const peer = countingClient(p.url, `${put(1_000_000)}{`);
    // A byte each 50 ms: never idle long enough for Node's keep-alive timeout (5 s) to close it.
    const trickle = setInterval(() => peer.socket.write('x'), 50);
    try {
      await until(() => peer.answers() === 1 || peer.closed, 'the early answer');
      await until(() => peer.closed, 'the connection to be closed');
      expect({ answers: peer.answers(), idle: p.connections().idle }).toEqual({ answers: 1, idle: 0 });
    } finally {
      clearInterval(trickle);
      peer.socket.destroy();
      await p.close(0);
      target.closeAllConnections();
      await new Promise((r) => target.close(r));
    }
  });
});
