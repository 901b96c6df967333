// A client that reads its answer slowly (or never) costs judging its own exchange, never everyone's:
// an exchange whose answer has not reached its client whole --timeout after its first byte, the proxy
// waiting on the client, gives its copies' room back when another exchange needs it, and is counted
// as forwarded, not judged, with the reason "the client read its answer too slowly". Before, two
// clients that asked for answers at the body cap and never read them held the whole room (2 × the
// cap) as long as they liked, and every other client's exchange streamed through unjudged. The same
// for a request whose body the client sends too slowly. Nobody needing the room, a slow client's
// exchange is judged as before; a slow target is not the client's doing, and its answer is judged.
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JudgeQueue, notJudgedNote } from '../lib/cli/proxy-run.js';
import { startProxy, type ForwardedExchange, type Unjudged } from '../lib/traffic/proxy.js';
import { servingProgram } from './helpers/cli.js';
import { until } from './helpers/wait.js';

const MIB = 1024 * 1024;
/** The default body cap: two answers of exactly this size fill the default room (2 × the cap). */
const CAP = 10 * MIB;

/** A client on a raw socket that sends `head` (and `body`, if any), reads the first bytes of its
 *  answer (or none, `readFirst` false) and then nothing more: its socket paused, the answer's rest
 *  stays in the proxy's buffers and the kernel's. */
function stalled(url: string, head: string, readFirst = true): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(head);
      if (!readFirst) resolve(socket);
    });
    socket.on('error', reject);
    if (readFirst) socket.once('data', () => { socket.pause(); resolve(socket); });
  });
}

/** A target whose /big answers `CAP` bytes of JSON with a Content-Length, and whose other paths
 *  answer a small record; /trickle sends a small answer in three parts `gapMs` apart. */
async function startTarget(gapMs = 0): Promise<{ server: Server; url: string }> {
  const big = Buffer.from(JSON.stringify({ releaseMessage: 'r'.repeat(CAP - '{"releaseMessage":""}'.length) }));
  expect(big.length).toBe(CAP);
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.setHeader('content-type', 'application/json; charset=utf-8');
      if (req.url === '/big') { res.setHeader('content-length', big.length); res.end(big); return; }
      if (req.url === '/trickle') {
        res.write('{"releaseMessage":"');
        setTimeout(() => res.write('part'), gapMs);
        setTimeout(() => res.end('"}'), 2 * gapMs);
        return;
      }
      res.end('{"releaseMessage":"ok"}');
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe('--proxy with two clients that never read answers at the body cap', () => {
  let target: { server: Server; url: string };
  beforeAll(async () => { target = await startTarget(); });
  afterAll(async () => { await new Promise((r) => target.server.close(r)); });

  // No limit of its own but the suite's hang guard: the stop waits for the last reports of a judge
  // that runs SCHED_IDLE, 150 s on a core kept busy (past the 120 s this test had).
  it('once --timeout has passed their copies give their room back to the other clients, whose exchanges are judged, and the reports name the reason', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'proxy-slow-reader-'));
    // --timeout 500: the subject, the time a client may keep the proxy waiting before its room may go
    // (and the time the target, this process, has to answer: it answers at once).
    const s = servingProgram('cli/main', ['--proxy', '0', '--base-url', target.url, '--report-dir', dir, '--reports', 'summary', '--timeout', '500', '--judge-priority', 'normal']);
    const warnings = () => {
      try { return (JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as { warnings: string[] }).warnings; } catch { return []; }
    };
    const sockets: Socket[] = [];
    try {
      const url = await s.url;
      // Each has the answer's head: the proxy has taken the room for its whole copy (its Content-Length).
      for (let i = 0; i < 2; i++) sockets.push(await stalled(url, 'GET /big HTTP/1.1\r\nHost: x\r\n\r\n'));
      // Ten times --timeout (the subject, in another process): both are overdue by then.
      await new Promise((r) => setTimeout(r, 5_000));
      for (let i = 0; i < 3; i++) {
        const r = await fetch(`${url}/supportstateuser`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"userName":"jdoe.support"}' });
        expect([r.status, await r.text()]).toEqual([200, '{"releaseMessage":"ok"}']);
      }
      // Their exchanges given up and counted, the stalled clients go: else the stop waits its grace
      // (5 s) for them to end.
      for (const socket of sockets) socket.destroy();
      s.child.kill('SIGTERM');
      expect(await s.exit).toBe(1); // the three judged answers lack the record's members: a MUST fails
      const reason = 'the client read its answer too slowly: not whole 0.5 s after its first byte (--timeout), and its room was needed';
      const last = `2 of 5 exchange(s) forwarded were not judged (60% judged): ${reason}; they streamed through unjudged`;
      expect(warnings().filter((w) => / forwarded were not judged /.test(w))).toEqual([last]);
      // Once among the warnings above the verdict (the summary of the last reports), once after it.
      expect([s.output().split(`  ! ${last}\n`).length - 1, s.output().split(`Warning: ${last}\n`).length - 1]).toEqual([1, 1]);
    } finally {
      for (const socket of sockets) socket.destroy();
      s.child.kill('SIGKILL');
    }
  });
});

describe('the proxy\'s room for copies and clients or targets that take their time', () => {
  let target: { server: Server; url: string };
  const GAP_MS = 800;
  beforeAll(async () => { target = await startTarget(GAP_MS); });
  afterAll(async () => { await new Promise((r) => target.server.close(r)); });

  /** A proxy over the run's own room (2 × the cap, 1 000 waiting), whose judge takes each exchange at once. */
  async function proxied(timeoutMs: number, roomBytes = 2 * CAP) {
    const judged: ForwardedExchange[] = [];
    const unjudged: (Unjudged | undefined)[] = [];
    const queue = new JudgeQueue(1000, roomBytes, (ex) => { judged.push(ex); queueMicrotask(() => queue.judged()); });
    const proxy = await startProxy({ target: target.url, port: 0, maxBodyBytes: CAP, timeoutMs, room: queue, onExchange: (ex) => queue.offer(ex), onUnjudged: (why) => { unjudged.push(why); } });
    return { proxy, queue, judged, unjudged };
  }

  it('two clients that send the head of a request with a body at the cap and then stall keep the room until --timeout has passed and another exchange needs it; then that exchange is judged', async () => {
    const { proxy, queue, judged, unjudged } = await proxied(1000);
    const sockets: Socket[] = [];
    try {
      for (let i = 0; i < 2; i++) sockets.push(await stalled(proxy.url, `POST /x HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\ncontent-length: ${CAP}\r\n\r\n{"a":`, false));
      await until(() => proxy.inFlight() === 2 && queue.held === 2 * CAP, 'both uploads to take their room');
      // Twice --timeout, on the proxy's own clock (this process): its watches have fired before this.
      await new Promise((r) => setTimeout(r, 2000));
      expect([unjudged, queue.held]).toEqual([[], 2 * CAP]); // overdue, but nobody needed the room yet
      const r = await fetch(`${proxy.url}/supportstateuser`, { method: 'POST', body: '{"userName":"jdoe.support"}' });
      expect(await r.text()).toBe('{"releaseMessage":"ok"}');
      await until(() => judged.length === 1, 'the well-behaved exchange to reach the judge');
      expect([judged[0]!.path, unjudged]).toEqual(['/supportstateuser', ['slow-request', 'slow-request']]);
      await until(() => queue.held === 0, 'the judged exchange to give its room back');
    } finally {
      for (const socket of sockets) socket.destroy();
      await proxy.close(0);
    }
  });

  it('an answer the target streams over more than --timeout to a client that reads it at once keeps its room when another exchange needs it, and is judged whole', async () => {
    // Room for the trickled answer (25 bytes), not for another answer (23) beside its first part (19).
    const { proxy, judged, unjudged } = await proxied(GAP_MS / 2, 30);
    try {
      const trickled = await new Promise<string>((resolve, reject) => {
        const req = httpRequest(`${proxy.url}/trickle`, (res) => {
          let body = '';
          res.on('data', (d: Buffer) => {
            body += d.toString();
            // Its second part came a gap (twice --timeout) after the first: another exchange asks for room.
            if (body.endsWith('part')) void fetch(`${proxy.url}/small`).then((r) => r.text());
          });
          res.on('end', () => resolve(body));
        });
        req.on('error', reject);
        req.end();
      });
      expect(trickled).toBe('{"releaseMessage":"part"}');
      await until(() => judged.length === 1 && unjudged.length === 1, 'the trickled exchange to reach the judge, and the other to be counted');
      expect([judged[0]!.path, Buffer.from(judged[0]!.answer!.body!).toString(), unjudged]).toEqual(['/trickle', '{"releaseMessage":"part"}', ['room']]);
    } finally {
      await proxy.close(0);
    }
  });
});

describe('what the console and the reports say of the exchanges not judged', () => {
  it('names each reason, and with more than one how many had each', () => {
    const q = new JudgeQueue(1000, 2 * CAP, () => undefined);
    for (const why of ['room', 'slow-answer', 'room', 'slow-request', 'slow-answer'] as const) q.notJudged(why);
    q.handed = 5;
    const run = { roomBytes: 2 * CAP, timeoutMs: 10_000, judgeStopped: false };
    expect(notJudgedNote(q, run, 'so far, ')).toBe('so far, 5 of 10 exchange(s) forwarded were not judged (50% judged): '
      + 'past the bound of 20 MiB copied for judging across the exchanges in flight, or of 1000 waiting for the judge (2); '
      + 'the client read its answer too slowly: not whole 10 s after its first byte (--timeout), and its room was needed (2); '
      + 'the client sent its request too slowly: not whole 10 s after its head (--timeout), and its room was needed (1); they streamed through unjudged');
    const slowOnly = new JudgeQueue(1000, 2 * CAP, () => undefined);
    slowOnly.notJudged('slow-request');
    expect(notJudgedNote(slowOnly, { ...run, timeoutMs: 1500 })).toBe('1 of 1 exchange(s) forwarded were not judged (0% judged): the client sent its request too slowly: not whole 1.5 s after its head (--timeout), and its room was needed; they streamed through unjudged');
  });
});
