// A target that sends early hints (103) without end cannot grow the proxy: Node writes each hint to
// the client at once, heeding no backpressure, so a target looping `103 Early Hints` to a client that
// read nothing grew the proxy by 50 MB/s (224 → 1461 MB in 26 s) until the 504 at --timeout. Now at
// most MAX_INFORMATIONAL informational answers (1xx) reach the client before one answer, none while
// its side is full, and the rest are dropped and counted; the answer after them is relayed and judged
// as before.
import { createServer, Socket, type AddressInfo, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_INFORMATIONAL, startProxy, type ForwardedExchange, type RunningProxy } from '../lib/traffic/proxy.js';
import { until } from './helpers/wait.js';

const HINT = Buffer.from('HTTP/1.1 103 Early Hints\r\nLink: </a>; rel=preload\r\n\r\n');
/** Hints per write, and the hints the target sends before its answer: 2 MiB of them (40 000). */
const BATCH = Buffer.concat(Array.from({ length: 64 }, () => HINT));
const FLOOD_BYTES = 2 * 1024 * 1024;
const OK = 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}';

describe('--proxy and a target that floods early hints before its answer', () => {
  let target: Server;
  let proxy: RunningProxy;
  const seen: ForwardedExchange[] = [];
  /** Hints the target has sent, on all its connections, and whether its last flood has ended. */
  let sent = 0;
  let flooded = false;
  beforeAll(async () => {
    // After each request head: 2 MiB of hints at the pace the proxy reads them, then a 200.
    target = createServer((s) => {
      s.on('error', () => undefined);
      // (A request at a time, each head in one read: the proxy's agent keeps the connection for the next.)
      s.on('data', () => {
        let bytes = 0;
        const pump = () => {
          while (!s.destroyed && bytes < FLOOD_BYTES) {
            bytes += BATCH.length;
            sent += BATCH.length / HINT.length;
            if (!s.write(BATCH)) return;
          }
          s.off('drain', pump);
          if (!s.destroyed) s.write(OK, () => { flooded = true; });
        };
        s.on('drain', pump);
        pump();
      });
    });
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    proxy = await startProxy({ target: `http://127.0.0.1:${(target.address() as AddressInfo).port}`, port: 0, maxBodyBytes: 1 << 20, timeoutMs: 30_000, onExchange: (ex) => seen.push(ex) });
  });
  afterAll(async () => { await proxy?.close(0); await new Promise((r) => target.close(r)); });

  /** A raw client: sends a request asking to close, reads nothing until the target's flood has
   *  ended (`reading` false) or everything as it comes, and gives back all it read until the close. */
  async function exchange(reading: boolean): Promise<string> {
    sent = 0;
    flooded = false;
    const { hostname, port } = new URL(proxy.url);
    const socket = new Socket();
    let got = '';
    const closed = new Promise<void>((r) => socket.on('close', () => r()));
    socket.on('data', (d: Buffer) => { got += d.toString('latin1'); });
    socket.on('error', () => undefined);
    socket.connect(Number(port), hostname, () => socket.write('GET /supportstateuser HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
    if (!reading) socket.pause();
    await until(() => flooded, 'the target to send its 2 MiB of hints and its answer');
    socket.resume();
    await closed;
    return got;
  }

  it.each([['reads nothing until the flood has ended', false], ['reads as the hints come', true]] as const)(`a client that %s gets at most ${MAX_INFORMATIONAL} hints, then the 200; every other hint is counted as dropped, and the exchange is judged as the 200`, async (_what, reading) => {
    const before = proxy.informationalDropped();
    const handed = seen.length;
    const got = await exchange(reading);
    const passed = got.split('HTTP/1.1 103 Early Hints\r\n').length - 1;
    expect(passed).toBeGreaterThanOrEqual(1);
    expect(passed).toBeLessThanOrEqual(MAX_INFORMATIONAL);
    expect(got.endsWith('\r\n\r\n{}')).toBe(true);
    expect(got.slice(got.lastIndexOf('HTTP/1.1 '))).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    // Every hint the target sent was either passed on or counted.
    expect(passed + proxy.informationalDropped() - before).toBe(sent);
    await until(() => seen.length > handed, 'the exchange to be handed over');
    expect([seen.length - handed, seen.at(-1)!.error, seen.at(-1)!.answer?.status]).toEqual([1, undefined, 200]);
  });
});
