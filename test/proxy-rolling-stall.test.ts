// A hostile peer cannot hold the proxy's room for copies by stalling its clients just under --timeout
// and replacing each exchange before it becomes overdue: before, clients that asked for an answer at
// the body cap and never read it, or sent the head of an upload at the cap and then nothing, held the
// whole room for as long as --timeout (and again with each fresh exchange), and every other client's
// exchange streamed through unjudged ('room'). Now an exchange whose client the proxy is waiting on,
// and which is behind the pace that has its body whole within --timeout by more than a grace (at most
// 1 s), gives its room back to the next exchange that finds none, and is counted with its reason. A
// client that keeps pace keeps its room. --timeout is 30 s here, never reached: the subject is the pace.
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JudgeQueue, notJudgedNote } from '../lib/cli/proxy-run.js';
import { movedBy } from '../lib/http/connection-guard.js';
import { startProxy, type ForwardedExchange, type Unjudged } from '../lib/traffic/proxy.js';
import { pauseMidTake } from './helpers/mid-take-pause.js';
import { until } from './helpers/wait.js';

const MIB = 1024 * 1024;
/** The body cap: an answer this long does not fit in the kernel's buffers between proxy and client. */
const CAP = 10 * MIB;
/** An answer longer than the kernel's buffers hold even for a client that reads (they grow as it does). */
const HUGE = 32 * MIB;
const TIMEOUT_MS = 30_000;
const OK = '{"releaseMessage":"ok"}';

/** A client on a raw socket that sends `head` and reads until it has `upTo` bytes, then nothing
 *  (its socket paused) until `allow` or `readTo` asks for more. */
function client(url: string, head: string, upTo: number) {
  const { hostname, port } = new URL(url);
  const chunks: Buffer[] = [];
  let got = 0;
  let limit = upTo;
  /** The last bytes received: an answer here ends with `"}`. */
  let tail = '';
  const socket: Socket = connect(Number(port), hostname, () => socket.write(head));
  if (limit === 0) socket.pause();
  socket.on('error', () => undefined);
  socket.on('data', (d: Buffer) => {
    chunks.push(d);
    got += d.length;
    tail = (tail + d.toString('latin1', Math.max(0, d.length - 2))).slice(-2);
    if (got >= limit) socket.pause();
  });
  const ended = () => tail === '"}';
  return {
    socket, got: () => got, ended, text: () => Buffer.concat(chunks).toString('latin1'),
    /** Reads on until it has `bytes`, then pauses again. */
    allow: (bytes: number) => { limit = bytes; socket.resume(); },
    /** The same, and waits until it has them (or the answer's end, `"}`). */
    readTo: async (bytes: number) => {
      limit = bytes;
      socket.resume();
      await until(() => got >= bytes || ended(), `the client to read ${bytes} bytes`);
    },
  };
}

describe('--proxy and a peer whose clients stall just under --timeout', () => {
  let target: Server;
  let targetUrl: string;
  beforeAll(async () => {
    const record = (size: number) => Buffer.from(JSON.stringify({ releaseMessage: 'r'.repeat(size - '{"releaseMessage":""}'.length) }));
    const big = record(CAP);
    const huge = record(HUGE);
    target = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.setHeader('content-type', 'application/json; charset=utf-8');
        const body = req.url === '/big' ? big : req.url === '/huge' ? huge : undefined;
        if (body) { res.setHeader('content-length', body.length); res.end(body); return; }
        res.end(OK);
      });
    });
    target.keepAliveTimeout = 60_000;
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  });
  afterAll(async () => { await new Promise((r) => target.close(r)); });

  /** A proxy over a room of `roomBytes`, whose judge takes each exchange at once. */
  async function proxied(roomBytes: number, maxBodyBytes = CAP) {
    const judged: ForwardedExchange[] = [];
    const unjudged: Unjudged[] = [];
    const queue = new JudgeQueue(1000, roomBytes, (ex) => { judged.push(ex); queueMicrotask(() => queue.judged()); });
    const proxy = await startProxy({ target: targetUrl, port: 0, maxBodyBytes, timeoutMs: TIMEOUT_MS, room: queue, onExchange: (ex) => queue.offer(ex), onUnjudged: (why) => { unjudged.push(why); } });
    return { proxy, queue, judged, unjudged };
  }

  it('a client that reads the first bytes of an answer at the cap and then none, and one that sends an upload at the cap a byte at a time, give the room back to the next honest exchanges well before --timeout, and still get every byte', async () => {
    const { proxy, queue, judged, unjudged } = await proxied(2 * CAP);
    const reader = client(proxy.url, 'GET /big HTTP/1.1\r\nHost: x\r\n\r\n', 1);
    const uploader = client(proxy.url, `POST /up HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\ncontent-length: ${CAP}\r\n\r\n{"a":"`, 0);
    // A byte every 100 ms, where 10 MiB in 30 s is 341 KiB/s: progress that does not keep pace.
    // (Not so the reader: as it reads, the kernel's buffers grow and take the proxy's bytes faster
    // than it reads them; from the proxy's side that is pace, and the answer ends within --timeout.)
    let sent = '{"a":"'.length;
    const trickle = setInterval(() => {
      uploader.socket.write('1');
      sent++;
    }, 100);
    try {
      // The upload holds the cap from its head, the answer from its own (its Content-Length).
      await until(() => proxy.inFlight() === 2 && queue.held === 2 * CAP, 'both exchanges to take the whole room');
      // The proxy waits on both, and they fall behind their pace past the grace.
      await until(() => proxy.lagging() === 2, 'both clients to fall behind their pace');
      // Honest clients that need the whole room: two answers at the cap at once, then small ones.
      const bigs = await Promise.all([0, 1].map(async () => (await (await fetch(`${proxy.url}/big`)).arrayBuffer()).byteLength));
      expect(bigs).toEqual([CAP, CAP]);
      for (let i = 0; i < 3; i++) {
        const r = await fetch(`${proxy.url}/supportstateuser`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"userName":"jdoe.support"}' });
        expect([r.status, await r.text()]).toEqual([200, OK]);
      }
      await until(() => judged.length + unjudged.filter((why) => why === 'room').length === 5, 'every honest exchange to be judged or counted');
      expect(judged.map((ex) => `${ex.path} ${ex.answer?.body?.length}`).sort()).toEqual([`/big ${CAP}`, `/big ${CAP}`, '/supportstateuser 23', '/supportstateuser 23', '/supportstateuser 23']);
      expect([...unjudged].sort()).toEqual(['lagging-answer', 'lagging-request']);
      // The slow clients lose only their judging: the reader gets the whole answer, the upload goes on.
      clearInterval(trickle);
      await reader.readTo(Infinity);
      expect(reader.text()).toMatch(new RegExp(`^HTTP/1\\.1 200 OK\\r\\n[^]*content-length: ${CAP}\\r\\n`, 'i'));
      expect(reader.text().length - reader.text().indexOf('\r\n\r\n') - 4).toBe(CAP);
      uploader.allow(Infinity);
      uploader.socket.write(`${'x'.repeat(CAP - sent - 2)}"}`);
      await until(() => uploader.ended(), 'the slow upload to be answered');
      expect(uploader.text()).toMatch(new RegExp(`${OK}$`));
      expect(uploader.text()).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
      await until(() => queue.held === 0, 'every copy to give its room back');
      expect([judged.length, [...unjudged].sort()]).toEqual([5, ['lagging-answer', 'lagging-request']]);
    } finally {
      clearInterval(trickle);
      reader.socket.destroy();
      uploader.socket.destroy();
      await proxy.close(0);
    }
  });

  it('a client that reads none of an answer at the cap, its kernel pausing once mid-take, gives its room back to the next exchange before an honest upload at half its pace does, and that exchange and the upload are judged: what the kernels\' buffers take after the pause earns it nothing', async () => {
    const UP = MIB;
    // Room for the unread answer and the upload: the next exchange finds none.
    const { proxy, queue, judged, unjudged } = await proxied(CAP + UP);
    // The answer's take paused some 200 KB in, then megabytes more taken at once.
    const { drains, restore } = pauseMidTake();
    const peer = client(proxy.url, 'GET /big HTTP/1.1\r\nHost: x\r\n\r\n', 0);
    let uploader: ReturnType<typeof client> | undefined;
    let trickle: NodeJS.Timeout | undefined;
    try {
      // The pause seen, then the kernel's take ended: the answer waits on its client, its bytes still.
      let last = -1;
      let same = 0;
      const still = () => {
        const [res] = drains.keys();
        if (!res?.socket || (drains.get(res) ?? 0) < 4 || !res.writableNeedDrain) return false;
        const now = movedBy(res.socket);
        same = now === last ? same + 1 : 0;
        last = now;
        return same >= 5;
      };
      await until(() => queue.held === CAP && still(), 'the unread answer to wait on its client');
      restore();
      // An honest upload at half the pace that has it whole within --timeout (1 MiB in 30 s): behind
      // by half the time it has taken, never as far as the answer waiting since before it began.
      uploader = client(proxy.url, `POST /up HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\ncontent-length: ${UP}\r\n\r\n{"a":"`, Infinity);
      const step = Math.floor((UP / (TIMEOUT_MS / 100)) / 2);
      let sent = '{"a":"'.length;
      trickle = setInterval(() => {
        if (sent + step + 2 >= UP) return;
        uploader!.socket.write('x'.repeat(step));
        sent += step;
      }, 100);
      await until(() => proxy.inFlight() === 2 && queue.held === CAP + UP, 'the upload to take its room');
      // Both behind their pace past the grace (1 s): the answer first, the upload some 2 s on.
      await until(() => proxy.lagging() === 2, 'both clients to fall behind their pace');
      const r = await fetch(`${proxy.url}/supportstateuser`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"userName":"jdoe.support"}' });
      expect([r.status, await r.text()]).toEqual([200, OK]);
      await until(() => judged.length + unjudged.length === 2, 'the newcomer to be judged and one exchange to give its room back');
      expect([judged.map((ex) => ex.path), unjudged]).toEqual([['/supportstateuser'], ['lagging-answer']]);
      // The upload, sent whole, is judged.
      clearInterval(trickle);
      uploader.socket.write(`${'x'.repeat(UP - sent - 2)}"}`);
      await until(() => uploader!.ended(), 'the upload to be answered');
      await until(() => judged.length === 2, 'the upload to reach the judge');
      expect([judged[1]!.path, judged[1]!.requestBody?.length, unjudged]).toEqual(['/up', UP, ['lagging-answer']]);
    } finally {
      restore();
      clearInterval(trickle);
      peer.socket.destroy();
      uploader?.socket.destroy();
      await proxy.close(0);
    }
  });

  it('a client that reads an answer at the cap in steps, ahead of its pace, keeps its room when another exchange needs it, though it then pauses past the grace', async () => {
    // An answer of 32 MiB, and room for it alone: a second exchange finds none.
    const { proxy, judged, unjudged } = await proxied(HUGE, HUGE);
    const reader = client(proxy.url, 'GET /huge HTTP/1.1\r\nHost: x\r\n\r\n', 0);
    try {
      // 256 KiB at a time, 20 ms apart (at most 12.5 MiB/s): far ahead of the pace of 32 MiB in 30 s.
      const readTo = async (bytes: number) => {
        while (reader.got() < bytes && !reader.ended()) {
          await reader.readTo(Math.min(bytes, reader.got() + 256 * 1024));
          await new Promise((r) => setTimeout(r, 20));
        }
      };
      // Half of it: the kernel's buffers hold a few MiB more, not the rest, so the proxy still sends it.
      await readTo(HUGE / 2);
      expect(proxy.inFlight()).toBe(1);
      // Three times the grace (1 s, the subject) with the reader paused, the proxy waiting on it.
      await new Promise((r) => setTimeout(r, 3000));
      const r = await fetch(`${proxy.url}/supportstateuser`, { method: 'POST', body: '{"userName":"jdoe.support"}' });
      expect(await r.text()).toBe(OK);
      await until(() => unjudged.length === 1, 'the other exchange to be counted');
      expect([unjudged, judged.length, proxy.inFlight()]).toEqual([['room'], 0, 1]);
      await readTo(Infinity);
      await until(() => judged.length === 1, 'the paced reader\'s exchange to reach the judge');
      expect([judged[0]!.path, judged[0]!.answer!.body!.length, unjudged]).toEqual(['/huge', HUGE, ['room']]);
    } finally {
      reader.socket.destroy();
      await proxy.close(0);
    }
  });
});

describe('the run\'s room and the proxy\'s question whether giving back bytes would open it', () => {
  it('is short only when its bytes keep it closed, not its count of exchanges waiting for the judge, nor a judge gone', () => {
    const bytesFull = new JudgeQueue(2, 100, () => undefined);
    expect([bytesFull.open(), bytesFull.short(), bytesFull.take(100), bytesFull.open(), bytesFull.short()]).toEqual([true, false, true, false, true]);
    const countFull = new JudgeQueue(1, 100, () => undefined);
    countFull.offer({ held: 0 } as ForwardedExchange);
    expect([countFull.take(100), countFull.open(), countFull.short()]).toEqual([true, false, false]);
    const judgeGone = new JudgeQueue(2, 100, () => undefined);
    judgeGone.closed = true;
    expect([judgeGone.take(100), judgeGone.open(), judgeGone.short()]).toEqual([true, false, false]);
  });
});

describe('what the console and the reports say of exchanges whose clients fell behind their pace', () => {
  it('names each reason with its count beside the others', () => {
    const q = new JudgeQueue(1000, 2 * CAP, () => undefined);
    for (const why of ['lagging-answer', 'room', 'lagging-request', 'lagging-answer', 'slow-answer'] as const) q.notJudged(why);
    q.handed = 5;
    const run = { roomBytes: 2 * CAP, timeoutMs: 10_000, judgeStopped: false };
    expect(notJudgedNote(q, run)).toBe('5 of 10 exchange(s) forwarded were not judged (50% judged): '
      + 'past the bound of 20 MiB copied for judging across the exchanges in flight, or of 1000 waiting for the judge (1); '
      + 'the client read its answer too slowly: not whole 10 s after its first byte (--timeout), and its room was needed (1); '
      + 'the client was reading its answer too slowly to have it whole 10 s after its first byte (--timeout), and its room was needed (2); '
      + 'the client was sending its request too slowly to have it whole 10 s after its head (--timeout), and its room was needed (1); they streamed through unjudged');
    const laggingOnly = new JudgeQueue(1000, 2 * CAP, () => undefined);
    laggingOnly.notJudged('lagging-request');
    expect(notJudgedNote(laggingOnly, run)).toBe('1 of 1 exchange(s) forwarded were not judged (0% judged): the client was sending its request too slowly to have it whole 10 s after its head (--timeout), and its room was needed; they streamed through unjudged');
  });
});
