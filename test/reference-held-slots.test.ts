// A peer cannot stop the reference or the judging reference by holding every connection they allow
// with requests it keeps waiting: a head announcing a body that comes in part or not at all (sent
// again on a new connection whenever one is closed), or an answer it never reads. Such a request gets
// 408 once it is not whole REQUEST_MS after its first byte (Node's requestTimeout, which answered
// "400 malformed" and left the connection half open, held for ever by a client that never closed
// its side), and at the bound a new connection is served by closing one of them
// (lib/http/connection-guard.ts). Before, every such connection was "busy": each new one was
// refused, and an honest client got no answer while the peer lasted. Each server says how many it
// closed, and whether they were answered (the judging reference: judged).
import { mkdtempSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startJudgingReference } from '../lib/cli/judging-reference.js';
import type { ConnectionCounts } from '../lib/http/connection-guard.js';
import { referenceUserDetails } from '../lib/reference/data.js';
import { startReference, type ReferenceOptions } from '../lib/reference/server.js';
import { honest, HONEST_BODY } from './helpers/honest-client.js';
import { holdingPeer } from './helpers/holding-peer.js';
import { GENEROUS_MS, until } from './helpers/wait.js';

/** A server, and what it says when stopped of what it closed: the reference its stop line, the
 *  judging reference its report's warnings, with the count of exchanges it judged. */
interface Server { readonly url: string; connections(): ConnectionCounts; stop(): Promise<{ said: string; judged?: number }> }

const SERVERS: Record<string, (options: Omit<ReferenceOptions, 'observer'>) => Promise<Server>> = {
  reference: async (options) => {
    const r = await startReference(options);
    return { url: r.url, connections: () => r.connections, stop: async () => { await r.close(); return { said: r.connectionsNote() ?? '' }; } };
  },
  'judging reference': async (options) => {
    const r = await startJudgingReference({ ...options, reportDir: mkdtempSync(join(tmpdir(), 'reference-held-slots-')), reports: new Set(['summary']), print: () => undefined });
    return {
      url: r.url, connections: () => r.connections,
      stop: async () => { const { report } = await r.stop(); return { said: report.warnings.join('\n'), judged: report.counts.exchanges.bySource.client ?? 0 }; },
    };
  },
};

const head = (length: number) => `POST /supportstateuser HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;

/** A connection that sends `send`, keeps its side open when the server closes its own (as a hostile
 *  client may), and reads (or, `reads` false, does not). */
async function client(url: string, send: string, reads = true) {
  const { hostname, port } = new URL(url);
  const socket: Socket = connect({ host: hostname, port: Number(port), allowHalfOpen: true });
  const c = { socket, got: '', closed: false };
  socket.on('error', () => undefined);
  socket.on('close', () => { c.closed = true; });
  if (reads) socket.on('data', (d: Buffer) => { c.got += d.toString('latin1'); });
  await new Promise<void>((r) => socket.once('connect', r));
  socket.write(send);
  if (!reads) socket.pause();
  return c;
}

describe.each(Object.keys(SERVERS))('the %s', (name) => {
  const start = SERVERS[name]!;

  it('answers each of an honest client\'s requests while a peer sends a head and part of a body on every connection it allows, again as each is closed: it closes the peer\'s at the bound, and says how many, none answered or judged', async () => {
    const MAX = 4;
    const s = await start({ connections: { max: MAX } });
    // Three connections per slot, each a head announcing 1 000 bytes of body and 10 of them.
    const hostile = holdingPeer(s.url, 3 * MAX, `${head(1000)}{"userName`);
    const statuses: (number | string)[] = [];
    try {
      await until(() => hostile.opened() > 3 * MAX && s.connections().open === MAX, 'the peer to hold every connection');
      for (let i = 0; i < 5; i++) statuses.push(await honest(s.url));
    } finally {
      hostile.stop();
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    const { said, judged } = await s.stop();
    const { stalled } = s.connections();
    expect(stalled).toBeGreaterThan(0);
    expect(said).toContain(`${stalled} connection(s) with a request in progress were closed for a new connection at the bound of ${MAX} open`);
    expect(said).toContain(`of those ${stalled}, ${stalled} had not sent it whole (not answered, so not judged)`);
    // The judging reference judged the honest requests, and nothing of the peer's.
    if (judged !== undefined) expect(judged).toBe(5);
  });

  it('answers 408 to a request whose body is not whole its request bound after its first byte, a byte coming now and then, closes its connection though its client keeps its side open, and says so', async () => {
    const s = await start({ connections: { requestMs: 300 } });
    const slow = await client(s.url, `${head(1000)}{`);
    const feed = setInterval(() => slow.socket.write('x'), 50);
    try {
      await until(() => slow.closed, 'the slow request\'s connection to be closed');
    } finally {
      clearInterval(feed);
    }
    expect(slow.got).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n[\s\S]*\r\n\r\nRequest Timeout: the request was not whole 0\.3 s after its first byte$/);
    expect(await honest(s.url)).toBe(200);
    const { said, judged } = await s.stop();
    expect(said).toContain('1 request(s) were not whole 0.3 s after their first byte: answered 408 and their connection closed, not judged');
    if (judged !== undefined) expect(judged).toBe(1);
  });

  it('answers an honest client while a peer reads none of its answers on every connection it allows, by closing one of them, and says so; each of those was answered (the judging reference: judged)', async () => {
    const MAX = 2;
    // 16 MiB: more than the kernel's buffers take, so an answer not read stays unsent.
    const s = await start({ connections: { max: MAX }, userDetails: { ...referenceUserDetails(), address: 'x'.repeat(16 << 20) } });
    const request = `${head(Buffer.byteLength(HONEST_BODY))}${HONEST_BODY}`;
    const peer = [await client(s.url, request, false), await client(s.url, request, false)];
    // Each request answered (its answer in progress: not waiting for a head, none of it read).
    // Two 16 MiB answers made (and, at the judging reference, judged) first, about 8 CPU-s in all: a
    // hang guard eight times the usual one, as a machine under heavy load took 65 s and 136 s for the
    // whole test (full suites at load averages 10 and 20; 5 s alone).
    await until(() => s.connections().open === MAX && s.connections().waiting === 0, 'the peer\'s requests to be answered', 8 * GENEROUS_MS);
    let status: number | string;
    try {
      status = await honest(s.url);
    } finally {
      for (const c of peer) c.socket.destroy();
    }
    expect(status).toBe(200);
    const { said, judged } = await s.stop();
    expect(s.connections()).toMatchObject({ stalled: 1, refused: 0 });
    expect(said).toContain('of those 1, 1 had been answered (the answer not read)');
    if (judged !== undefined) expect(judged).toBe(MAX + 1);
  });
});
