// An exchange whose answer found no room for its copy is not judged for want of room, and is counted
// so, whatever its client does next: before, its client's pace was still watched, and a client that
// then read slowly was counted as "read its answer too slowly" once another exchange needed room
// (which its exchange never held).
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { JudgeQueue } from '../lib/cli/proxy-run.js';
import { startProxy, type Unjudged } from '../lib/traffic/proxy.js';
import { until } from './helpers/wait.js';

const MIB = 1024 * 1024;
/** Past what the kernel's buffers take on loopback: a stalled reader's answer cannot finish. */
const CAP = 16 * MIB;
/** Room left beside the first answer: enough to open an exchange, not to copy another answer. */
const FREE = 1000;

let target: Server;
let targetUrl = '';
beforeAll(async () => {
  const big = Buffer.alloc(CAP, 0x20);
  target = createServer((req, res) => {
    req.resume();
    // /held: an answer of all the room but FREE bytes announced, its first byte sent, the rest never
    // (the target is slow, not the client): its copy holds that much of the room throughout.
    if (req.url === '/held') { res.writeHead(200, { 'content-length': CAP - FREE }); res.write(' '); return; }
    if (req.url === '/big') { res.writeHead(200, { 'content-length': CAP }); res.end(big); return; }
    res.end(' '.repeat(2 * FREE)); // more than the room left
  });
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
});
afterAll(async () => { target.closeAllConnections(); await new Promise((r) => target.close(r)); });

/** A raw client that sends `head`, reads the first bytes of its answer, then reads nothing more. */
const stalled = (url: string, head: string): Promise<Socket> => new Promise((resolve, reject) => {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname, () => socket.write(head));
  socket.on('error', reject);
  socket.once('data', () => { socket.pause(); resolve(socket); });
});

it('a client stalled on an answer whose copy found no room is counted under the room, not as a slow reader, when another exchange needs room', async () => {
  const unjudged: Unjudged[] = [];
  const queue = new JudgeQueue(1000, CAP, () => queueMicrotask(() => queue.judged()));
  // --timeout 300 ms: a stalled reader's watch fires long before the third exchange comes.
  const proxy = await startProxy({ target: targetUrl, port: 0, maxBodyBytes: CAP, timeoutMs: 300, room: queue, onExchange: (ex) => queue.offer(ex), onUnjudged: (why) => { unjudged.push(why); } });
  const sockets: Socket[] = [];
  try {
    sockets.push(await stalled(proxy.url, 'GET /held HTTP/1.1\r\nHost: x\r\n\r\n'));
    await until(() => queue.held === CAP - FREE, 'the first answer to take all the room but FREE bytes');
    sockets.push(await stalled(proxy.url, 'GET /big HTTP/1.1\r\nHost: x\r\n\r\n'));
    // Past the stalled reader's --timeout, on this process's clock (the proxy's).
    await new Promise((r) => setTimeout(r, 1500));
    expect((await (await fetch(`${proxy.url}/small`)).text()).length).toBe(2 * FREE);
    await until(() => unjudged.length >= 1, 'the small exchange to be counted');
    expect(unjudged).toEqual(['room']);
    sockets[1]!.destroy();
    await until(() => unjudged.length >= 2, 'the stalled reader\'s exchange to be counted as it ends');
    expect(unjudged).toEqual(['room', 'room']);
  } finally {
    for (const s of sockets) s.destroy();
    await proxy.close(0);
  }
}, 60_000);
