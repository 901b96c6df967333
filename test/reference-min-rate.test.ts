// At the bound on connections, the reference and the judging reference close, for a newcomer, a
// connection whose client keeps its request waiting (lib/http/connection-guard.ts). They ranked those
// by bytes per second since the last request's head alone, with no minimum: an honest client that
// had just pipelined dozens of requests and read their answers (about 170 KB), its next head sent and
// its body on its way, had moved nothing since that head and was closed rather than a peer trickling
// a body a few bytes at a time; and of two honest uploads, one was closed. Now a connection moving
// MIN_RATE bytes per second or more over the guard's window (its pipelined requests included) is
// never the one closed: the newcomer is refused when every other is. The guard's sweeps are held
// still, so the window is one period whatever the machine's speed: the figures do not depend on time.
import type { Socket } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { ConnectionGuard, MIN_RATE } from '../lib/http/connection-guard.js';
import { honest, HONEST_BODY } from './helpers/honest-client.js';
import { countingClient } from './helpers/answer-counting-client.js';
import { guardedServers } from './helpers/guarded-servers.js';
import { until } from './helpers/wait.js';

const SERVERS = guardedServers('reference-min-rate-');

const head = (length: number) => `POST /supportstateuser HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;
const WHOLE = `${head(Buffer.byteLength(HONEST_BODY))}${HONEST_BODY}`;
/** Requests the honest client pipelines before the one whose body is on its way. */
const PIPELINED = 40;
/** A body of 4 000 bytes the reference answers, sent in two parts, the first PART bytes (in a
 *  window of one second: four times the minimum rate). */
const UPLOAD = JSON.stringify({ userName: 'test', password: 'x'.repeat(3967) });
const PART = 4 * MIN_RATE;
/** What the peer trickles of a body announced as 1 000 bytes. */
const TRICKLE = '{"userName';

/** The guard's sweeps, held still: its clock and window stay where they are (one period, 1 s here),
 *  whatever the machine's speed. */
const holdSweeps = () => vi.spyOn(ConnectionGuard.prototype as unknown as { sweep(): void }, 'sweep').mockImplementation(() => undefined);

/** The socket a client's connection was accepted as, once the guard has swept since (undefined before). */
const accepted = (sweeps: ReturnType<typeof holdSweeps>, c: ReturnType<typeof countingClient>): Socket | undefined =>
  [...((sweeps.mock.contexts.at(-1) as { used: Map<Socket, unknown> } | undefined)?.used.keys() ?? [])].find((x) => x.remotePort === c.socket.localPort);

describe.each(Object.keys(SERVERS))('the %s at its bound', (name) => {
  it('closes a peer trickling a body for a newcomer, not an honest client that pipelined dozens of requests and whose next body is on its way: the newcomer and every honest request are answered', async () => {
    const sweeps = holdSweeps();
    const s = await SERVERS[name]!(2);
    const pipelining = countingClient(s.url, WHOLE.repeat(PIPELINED));
    const peer = countingClient(s.url, head(1000));
    try {
      // Its answers read, the honest client sends its next head, the body to follow.
      await until(() => pipelining.answers() === PIPELINED, 'the pipelined requests to be answered');
      pipelining.socket.write(head(Buffer.byteLength(HONEST_BODY)));
      await until(() => s.connections().open === 2 && s.connections().waiting === 0, 'the honest client\'s next head and the peer\'s to come');
      // The peer's few bytes read by the reference: it moved them, well under any minimum rate.
      peer.socket.write(TRICKLE);
      await until(() => accepted(sweeps, peer)?.bytesRead === head(1000).length + TRICKLE.length, 'the peer\'s trickle to be read');
      const newcomer = await honest(s.url);
      await until(() => peer.closed || pipelining.closed, 'a connection to be closed for the newcomer');
      const closed = { peer: peer.closed, pipelining: pipelining.closed };
      pipelining.socket.write(HONEST_BODY);
      await until(() => pipelining.answers() === PIPELINED + 1 || pipelining.closed, 'the honest client\'s last answer');
      expect({ newcomer, closed, answers: pipelining.answers(), stalled: s.connections().stalled, refused: s.connections().refused })
        .toEqual({ newcomer: 200, closed: { peer: true, pipelining: false }, answers: PIPELINED + 1, stalled: 1, refused: 0 });
    } finally {
      sweeps.mockRestore();
      pipelining.socket.destroy();
      peer.socket.destroy();
      await s.close();
    }
  });

  it('refuses a newcomer rather than close either of two honest clients uploading four times the minimum rate in the window, their bodies still coming: both are answered', async () => {
    const sweeps = holdSweeps();
    const s = await SERVERS[name]!(2);
    const uploads = [countingClient(s.url, head(UPLOAD.length)), countingClient(s.url, head(UPLOAD.length))];
    try {
      await until(() => s.connections().open === 2 && s.connections().waiting === 0, 'both heads to come');
      // A part of each body after its head.
      for (const u of uploads) u.socket.write(UPLOAD.slice(0, PART));
      await until(() => uploads.every((u) => accepted(sweeps, u)?.bytesRead === head(UPLOAD.length).length + PART), 'both parts to be read');
      const newcomer = await honest(s.url);
      for (const u of uploads) u.socket.write(UPLOAD.slice(PART));
      await until(() => uploads.every((u) => u.answers() === 1 || u.closed), 'both uploads\' answers');
      expect({ newcomer, closed: uploads.map((u) => u.closed), answers: uploads.map((u) => u.answers()), stalled: s.connections().stalled, refused: s.connections().refused })
        .toEqual({ newcomer: expect.stringMatching(/^E/), closed: [false, false], answers: [1, 1], stalled: 0, refused: 1 });
    } finally {
      sweeps.mockRestore();
      for (const u of uploads) u.socket.destroy();
      await s.close();
    }
  });
});
