// A peer cannot keep honest clients out by holding every client connection the proxy allows with
// requests it keeps waiting: a body that never comes (sent again on a new connection whenever one is
// closed, as a client cut at the body deadline would), or an answer it never reads. At the bound, a
// new connection is served by closing the one whose client keeps its request waiting and moved
// fewest bytes per second lately (lib/http/connection-guard.ts; not since its head, which ranked a
// peer reading no answer, its first megabytes taken by the kernel, above a slow honest upload), and
// that exchange is counted as not judged.
// Before, every such connection was "busy": new ones were refused (or closed by the peer's own churn
// of new connections before their heads came), and an honest client got no answer while it lasted.
import { createServer, ServerResponse, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { JudgeQueue, notJudgedNote } from '../lib/cli/proxy-run.js';
import { ConnectionGuard, movedBy, unreadTake } from '../lib/http/connection-guard.js';
import { startProxy, type RunningProxy, type Unjudged } from '../lib/traffic/proxy.js';
import { proxiedRawTarget } from './helpers/raw-target.js';
import { honest } from './helpers/honest-client.js';
import { holdingPeer as peer } from './helpers/holding-peer.js';
import { pauseMidTake } from './helpers/mid-take-pause.js';
import { GENEROUS_MS, until } from './helpers/wait.js';

const OK = 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}';
/** Every exchange the proxy gave up: those closed at the bound, and those of the peer's connections
 *  it closed itself at the end (hung up); nothing else. */
async function settled(proxy: RunningProxy, unjudged: readonly Unjudged[]) {
  await until(() => proxy.inFlight() === 0, 'the exchanges of the closed connections to end');
  return { stalled: proxy.connections().stalled, counted: unjudged.filter((w) => w === 'stalled-at-bound').length, other: unjudged.filter((w) => w !== 'stalled-at-bound' && w !== 'client-gone') };
}

describe('--proxy while a peer keeps request bodies waiting on every connection it allows', () => {
  const MAX = 4;
  const unjudged: Unjudged[] = [];
  const setup = proxiedRawTarget(() => OK, { proxy: { connections: { max: MAX }, onUnjudged: (why) => { unjudged.push(why); } } });

  it('answers each of an honest client\'s requests, closing the peer\'s connections in their place, and counts each exchange closed as not judged', async () => {
    // Three connections per slot, each a head announcing a body that never comes.
    const hostile = peer(setup.proxy.url, 3 * MAX, 'POST /supportstateuser HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{');
    const statuses: (number | string)[] = [];
    try {
      await until(() => hostile.opened() > 3 * MAX && setup.proxy.connections().open === MAX, 'the peer to hold every connection');
      for (let i = 0; i < 5; i++) statuses.push(await honest(setup.proxy.url));
    } finally {
      hostile.stop();
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    // The target got the honest requests whole, and no hostile one; each honest exchange is judged.
    expect(setup.target.requests.map((r) => r.line)).toEqual(Array(5).fill('POST /supportstateuser HTTP/1.1'));
    expect(setup.seen.map((ex) => ex.path)).toEqual(Array(5).fill('/supportstateuser'));
    const { stalled, counted, other } = await settled(setup.proxy, unjudged);
    expect(stalled).toBeGreaterThan(0);
    expect([counted, other]).toEqual([stalled, []]);
    expect(setup.proxy.connectionsNote()).toContain(`${stalled} connection(s) with a request in progress were closed for a new connection at the bound of ${MAX} open`);
  });
});

/** A target answering `GET /big` with 16 MiB (more than the kernel's buffers and the proxy's take, so
 *  an answer not read stays unsent) and anything else with `{}` once its body is whole, behind a
 *  proxy allowing `max` client connections; `unjudged` lists the proxy's exchanges not judged. */
function bigAnswers(max: number) {
  const unjudged: Unjudged[] = [];
  let target: Server;
  let proxy: RunningProxy;
  let bigServed = 0;
  beforeAll(async () => {
    // 16 MiB: more than the kernel's buffers and the proxy's take, so an answer not read stays unsent.
    const big = Buffer.alloc(16 * 1024 * 1024, 'x');
    target = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        if (req.url === '/big') { bigServed++; res.end(big); } else res.end('{}');
      });
    });
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    proxy = await startProxy({ target: `http://127.0.0.1:${(target.address() as AddressInfo).port}`, port: 0, maxBodyBytes: 1 << 20, timeoutMs: 30_000, onExchange: () => undefined, onUnjudged: (why) => { unjudged.push(why); }, connections: { max } });
  });
  afterAll(async () => {
    await proxy.close(0);
    target.closeAllConnections();
    await new Promise((r) => target.close(r));
  });
  return { unjudged, get proxy() { return proxy; }, bigServed: () => bigServed };
}

describe('--proxy while a peer reads none of its answers on every connection it allows', () => {
  const MAX = 2;
  const setup = bigAnswers(MAX);

  it('answers an honest client by closing one of them, counted as not judged', async () => {
    const { proxy, unjudged } = setup;
    const hostile = peer(proxy.url, MAX, 'GET /big HTTP/1.1\r\nHost: x\r\n\r\n', false);
    let status: number | string = 'none';
    try {
      await until(() => setup.bigServed() >= MAX, 'the target to answer every unread request');
      // Refused while the answers still flow into the kernel's buffers; answered once they wait on the peer.
      const bound = Date.now() + GENEROUS_MS;
      while ((status = await honest(proxy.url)) !== 200 && Date.now() < bound) await new Promise((r) => setTimeout(r, 20));
    } finally {
      hostile.stop();
    }
    expect(status).toBe(200);
    const { stalled, counted, other } = await settled(proxy, unjudged);
    expect(stalled).toBeGreaterThan(0);
    expect([counted, other]).toEqual([stalled, []]);
  });
});

/** A client uploading a body of `length` bytes at 256 B each 50 ms (5 KiB/s, a slow link) until
 *  `rest` sends what is left at once; `got` is what it read. */
function slowUpload(url: string, length: number) {
  const { hostname, port } = new URL(url);
  const socket: Socket = connect(Number(port), hostname);
  const up = { socket, got: '', closed: false, sent: 0, rest: () => { clearInterval(feed); socket.write('x'.repeat(length - up.sent)); } };
  socket.on('error', () => undefined);
  socket.on('close', () => { up.closed = true; clearInterval(feed); });
  socket.on('data', (d: Buffer) => { up.got += d.toString('latin1'); });
  socket.write(`POST /upload HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\nContent-Length: ${length}\r\n\r\n`);
  const feed = setInterval(() => { if (up.sent + 256 < length) { socket.write('x'.repeat(256)); up.sent += 256; } }, 50);
  return up;
}

/** `n` connections each asking for `/big` and reading none of it. */
const neverReading = (proxy: RunningProxy, n: number): Socket[] => Array.from({ length: n }, () => {
  const s = connect(proxy.port, '127.0.0.1', () => { s.write('GET /big HTTP/1.1\r\nHost: x\r\n\r\n'); s.pause(); });
  s.on('error', () => undefined);
  return s;
});

/** A newcomer at the bound is answered, one connection closed for it, not the slow upload (the
 *  guard's sweeps go on); then the upload, sent whole, is answered too. */
async function newcomerThenUpload(proxy: RunningProxy, up: ReturnType<typeof slowUpload>, sweeps: { mockRestore(): void }) {
  const status = await honest(proxy.url);
  expect({ status, stalled: proxy.connections().stalled, uploadClosed: up.closed }).toEqual({ status: 200, stalled: 1, uploadClosed: false });
  sweeps.mockRestore();
  up.rest();
  await until(() => up.got.includes('\r\n\r\n{}') || up.closed, 'the upload\'s answer');
  expect(up.got).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\n\{\}$/);
}

describe('--proxy at its bound, an honest client uploading slowly beside a peer reading none of its answers', () => {
  const MAX = 3;
  const setup = bigAnswers(MAX);

  it('closes one of the peer\'s connections for a new one, not the upload, which goes on and is answered', async () => {
    const { proxy, unjudged } = setup;
    // The guard's sweeps, each a sample of the bytes each busy connection moved: waited for by count, not time.
    const sweeps = vi.spyOn(ConnectionGuard.prototype as unknown as { sweep(): void }, 'sweep');
    const up = slowUpload(proxy.url, 64 * 1024);
    const peers: Socket[] = [];
    try {
      peers.push(...neverReading(proxy, MAX - 1));
      await until(() => setup.bigServed() >= MAX - 1 && proxy.connections().open === MAX, 'the target to answer every unread request');
      // The kernel's buffers took megabytes of each answer at once: averaged since its head, that
      // ranked the peer above the upload for minutes. Three sweeps on, it moved nothing lately.
      const from = sweeps.mock.calls.length;
      await until(() => sweeps.mock.calls.length >= from + 3, 'three sweeps of the guard');
      await newcomerThenUpload(proxy, up, sweeps);
    } finally {
      sweeps.mockRestore();
      up.socket.destroy();
      for (const s of peers) s.destroy();
    }
    await until(() => proxy.inFlight() === 0, 'the exchanges of the closed connections to end');
    expect(unjudged.filter((w) => w === 'stalled-at-bound')).toHaveLength(1);
  });
});

describe('the reports', () => {
  it('name the reason', () => {
    const q = new JudgeQueue(10, 100, () => undefined);
    q.notJudged('stalled-at-bound');
    expect(notJudgedNote(q, { roomBytes: 100, timeoutMs: 10_000, judgeStopped: false })).toBe('1 of 1 exchange(s) forwarded were not judged (0% judged): the client kept it waiting (its body not coming, its answer not read) when a new connection came at the bound of open connections, moving fewest bytes per second: its connection was closed for the new one; they streamed through unjudged');
  });
});

/** An honest client uploading slowly at the bound of 3 beside a peer opening new connections that
 *  read none of their answers, within one period of the guard (the clock held still). `busy`: the
 *  proxy's thread held on the CPU while the peer's answers pour into its kernel's buffers; `paused`:
 *  each answer's take stops once midway, the thread asleep, then goes on at memory speed. */
function newConnectionsBesideUpload(kernel: 'quick' | 'busy' | 'paused') {
  const MAX = 3;
  const setup = bigAnswers(MAX);
  return async () => {
    const { proxy, unjudged } = setup;
    const sweeps = vi.spyOn(ConnectionGuard.prototype as unknown as { sweep(): void }, 'sweep');
    const up = slowUpload(proxy.url, 64 * 1024);
    const peers: Socket[] = [];
    const emit = ServerResponse.prototype.emit;
    try {
      // The upload measured over whole sweeps; then the clock held still, as within one period (1 s
      // at the defaults) of the peer's new heads: their bursts fall inside any window there is.
      await until(() => proxy.connections().open === 1 && up.sent > 0, 'the upload to begin');
      const from = sweeps.mock.calls.length;
      await until(() => sweeps.mock.calls.length >= from + 3, 'three sweeps of the guard');
      const guard = (sweeps.mock.contexts as unknown as { used: Map<Socket, { res?: ServerResponse }>; stalls: { stalled(s: Socket, r: ServerResponse): boolean } }[]).find((g) => g.used.size > 0)!;
      const [upload] = guard.used.keys();
      sweeps.mockImplementation(() => undefined);
      // As on a machine whose other work takes the proxy's CPU: each drain of an answer is seen 20 ms
      // late (twice the proxy's quick wait), its thread kept running all that while.
      if (kernel === 'busy') {
        ServerResponse.prototype.emit = function (this: ServerResponse, event: string | symbol, ...args: unknown[]) {
          if (event === 'drain') for (const t = performance.now(); performance.now() - t < 20;);
          return emit.call(this, event, ...args);
        };
      }
      // Each answer's take paused once midway (restored with `emit` below).
      if (kernel === 'paused') pauseMidTake();
      peers.push(...neverReading(proxy, MAX - 1));
      // Each of the peer's answers waits on its full side (the upload's body on its client)...
      const held = () => [...guard.used].filter(([s, c]) => c.res && !c.res.writableFinished && guard.stalls.stalled(s, c.res)).length;
      // ...and its kernel takes no more of it (its bytes as the guard counts them the same twice).
      let last = -1;
      const still = () => { const now = [...guard.used.keys()].filter((s) => s !== upload).reduce((sum, s) => sum + movedBy(s), 0); const same = now === last; last = now; return same; };
      await until(() => setup.bigServed() >= MAX - 1 && held() === MAX && still(), 'every connection to wait on its client');
      ServerResponse.prototype.emit = emit;
      // Past the proxy's quick wait (its kernel's take): a wait only lengthens on a busy machine.
      await new Promise((r) => setTimeout(r, 50));
      await newcomerThenUpload(proxy, up, sweeps);
    } finally {
      ServerResponse.prototype.emit = emit;
      sweeps.mockRestore();
      up.socket.destroy();
      for (const s of peers) s.destroy();
    }
    await until(() => proxy.inFlight() === 0, 'the exchanges of the closed connections to end');
    expect(unjudged.filter((w) => w === 'stalled-at-bound')).toHaveLength(1);
  };
}

describe('--proxy at its bound, an honest client uploading slowly beside a peer opening new connections that read none of their answers', () => {
  it('closes one of the peer\'s new connections for a newcomer, not the upload: the megabytes the kernel took at once from each count for nothing', newConnectionsBesideUpload('quick'));
});

describe('--proxy at its bound on a busy CPU, an honest client uploading slowly beside a peer opening new connections that read none of their answers', () => {
  it('closes one of the peer\'s new connections for a newcomer, not the upload: a drain seen late by a thread kept running (its kernel took the bytes at once) is no wait on the peer', newConnectionsBesideUpload('busy'));
});

describe('--proxy at its bound, an honest client uploading slowly beside a peer opening new connections whose kernel pauses once in taking each answer', () => {
  it('closes one of the peer\'s new connections for a newcomer, not the upload: what the kernel\'s buffers take after a pause mid-take counts for nothing either', newConnectionsBesideUpload('paused'));
});

describe('the most the kernels\' buffers take of an answer its client reads none of', () => {
  it('is this side\'s largest send buffer and the client\'s first receive buffer, from /proc/sys/net/ipv4 (Linux\'s defaults where unreadable)', () => {
    expect(unreadTake('4096\t16384\t4194304\n', '4096\t131072\t33554432\n')).toBe(4194304 + 131072);
    expect(unreadTake('4096 16384 8388608', '4096 87380 6291456')).toBe(8388608 + 87380);
    expect([unreadTake(undefined, undefined), unreadTake('', 'x y z')]).toEqual([4194304 + 131072, 4194304 + 131072]);
  });
});
