// A client that reads its answer slowly (or never) costs judging its own exchange, never everyone's:
// the copy of an answer that has not reached its client whole within --timeout of its first byte,
// the proxy waiting on the client, gives its room back and the exchange is counted as forwarded, not
// judged, with the reason "the client read its answer too slowly". Before, two clients that asked for
// answers at the body cap and never read them held the whole room (2 × the cap) as long as they
// liked, and every other client's exchange streamed through unjudged. The same for a request whose
// body the client sends too slowly. A slow target is not the client's fault: its answer is judged.
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
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

  it('their copies give their room back after --timeout, the other clients\' exchanges are judged, and the reports name the reason', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'proxy-slow-reader-'));
    // --timeout 1500: the subject, the time a client may take to read an answer while the proxy waits on it.
    const s = servingProgram('cli/main', ['--proxy', '0', '--base-url', target.url, '--report-dir', dir, '--reports', 'summary', '--timeout', '1500']);
    const warnings = () => {
      try { return (JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as { warnings: string[] }).warnings; } catch { return []; }
    };
    const sockets: Socket[] = [];
    try {
      const url = await s.url;
      // Each has the answer's head: the proxy has taken the room for its whole copy (its Content-Length).
      for (let i = 0; i < 2; i++) sockets.push(await stalled(url, 'GET /big HTTP/1.1\r\nHost: x\r\n\r\n'));
      const reason = 'the client read its answer too slowly: not whole 1.5 s after its first byte (--timeout)';
      await until(() => warnings().includes(`so far, 2 of 2 exchange(s) forwarded were not judged (0% judged): ${reason}; they streamed through unjudged`),
        'a report written during the traffic to say the stalled clients\' exchanges were not judged, and why', 60_000);
      for (let i = 0; i < 3; i++) {
        const r = await fetch(`${url}/supportstateuser`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"userName":"jdoe.support"}' });
        expect([r.status, await r.text()]).toEqual([200, '{"releaseMessage":"ok"}']);
      }
      s.child.kill('SIGTERM');
      expect(await s.exit).toBe(1); // the three judged answers lack the record's members: a MUST fails
      const last = `2 of 5 exchange(s) forwarded were not judged (60% judged): ${reason}; they streamed through unjudged`;
      expect(warnings().filter((w) => / forwarded were not judged /.test(w))).toEqual([last]);
      expect(s.output()).toContain(`  ! ${last}\n`);
    } finally {
      for (const socket of sockets) socket.destroy();
      s.child.kill('SIGKILL');
    }
  }, 120_000);
});

describe('the proxy\'s room for copies and clients or targets that take their time', () => {
  let target: { server: Server; url: string };
  const GAP_MS = 800;
  beforeAll(async () => { target = await startTarget(GAP_MS); });
  afterAll(async () => { await new Promise((r) => target.server.close(r)); });

  /** A proxy over the run's own room (2 × the cap, 1 000 waiting), whose judge takes each exchange at once. */
  async function proxied(timeoutMs: number) {
    const judged: ForwardedExchange[] = [];
    const unjudged: (Unjudged | undefined)[] = [];
    const queue = new JudgeQueue(1000, 2 * CAP, (ex) => { judged.push(ex); queueMicrotask(() => queue.judged()); });
    const proxy = await startProxy({ target: target.url, port: 0, maxBodyBytes: CAP, timeoutMs, room: queue, onExchange: (ex) => queue.offer(ex), onUnjudged: (why) => { unjudged.push(why); } });
    return { proxy, queue, judged, unjudged };
  }

  it('a client that sends the head of a request with a body at the cap and then stalls gives its room back after --timeout; the next client\'s exchange is judged', async () => {
    const { proxy, queue, judged, unjudged } = await proxied(1000);
    const sockets: Socket[] = [];
    try {
      for (let i = 0; i < 2; i++) sockets.push(await stalled(proxy.url, `POST /x HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\ncontent-length: ${CAP}\r\n\r\n{"a":`, false));
      await until(() => unjudged.length === 2, 'the stalled uploads to be counted as not judged');
      expect(unjudged).toEqual(['slow-request', 'slow-request']);
      expect(queue.held).toBe(0);
      const r = await fetch(`${proxy.url}/supportstateuser`, { method: 'POST', body: '{"userName":"jdoe.support"}' });
      expect(await r.text()).toBe('{"releaseMessage":"ok"}');
      await until(() => judged.length === 1, 'the well-behaved exchange to reach the judge');
      expect([judged[0]!.path, unjudged.length]).toEqual(['/supportstateuser', 2]);
    } finally {
      for (const socket of sockets) socket.destroy();
      await proxy.close(0);
    }
  });

  it('an answer the target streams over more than --timeout to a client that reads it at once is judged whole', async () => {
    const { proxy, judged, unjudged } = await proxied(GAP_MS / 2);
    try {
      const r = await fetch(`${proxy.url}/trickle`);
      expect(await r.text()).toBe('{"releaseMessage":"part"}');
      await until(() => judged.length === 1, 'the exchange to reach the judge');
      expect([Buffer.from(judged[0]!.answer!.body!).toString(), unjudged]).toEqual(['{"releaseMessage":"part"}', []]);
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
      + 'for 2, past the bound of 20 MiB copied for judging across the exchanges in flight, or of 1000 waiting for the judge; '
      + 'for 2, the client read its answer too slowly: not whole 10 s after its first byte (--timeout); '
      + 'for 1, the client sent its request too slowly: not whole 10 s after its head (--timeout); they streamed through unjudged');
    const slowOnly = new JudgeQueue(1000, 2 * CAP, () => undefined);
    slowOnly.notJudged('slow-request');
    expect(notJudgedNote(slowOnly, { ...run, timeoutMs: 1500 })).toBe('1 of 1 exchange(s) forwarded were not judged (0% judged): the client sent its request too slowly: not whole 1.5 s after its head (--timeout); they streamed through unjudged');
  });
});
