// At the bound on connections, the reference closes a connection whose client keeps its request
// waiting, for a newcomer (lib/http/connection-guard.ts). With an observer (the judging reference)
// pipelined requests take turns (PIPELINED_PER_TURN a turn), and an answer waits for those before it
// on its connection. Judged by its last request alone (a body not whole, an answer ended but not
// written out), a connection whose request waited its turn, its body unread (Node stops reading the
// connection), or whose answers waited behind one the reference had not made yet (a host's route,
// as GET /__conformance/report writing the reports), looked held by its client: an honest client
// pipelining was closed, its answers lost, for the newcomer. Now only a client that does not read
// its answers or does not send its body is closed so: with every connection honest, the newcomer
// is refused.
import { connect } from 'node:net';
import { expect, it } from 'vitest';
import { PIPELINED_PER_TURN, startReference } from '../lib/reference/server.js';
import { honest } from './helpers/honest-client.js';
import { until } from './helpers/wait.js';

const HOLD = '/hold';
const post = (body: string) => `POST /supportstateuser HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
const SMALL = post(JSON.stringify({ userName: 'jdoe.support' }));
// Past Node's 16 KiB buffer of a request not read yet: Node stops reading the connection while it waits.
const LARGE = post(JSON.stringify({ userName: 'jdoe.support', searchValues: 'x'.repeat(40_000) }));
// A request the reference answers late, then a turn's worth and more behind it.
const PIPELINE = `GET ${HOLD} HTTP/1.1\r\nHost: x\r\n\r\n${SMALL.repeat(PIPELINED_PER_TURN)}${LARGE}`;
const COUNT = PIPELINED_PER_TURN + 2;

/** A client writing PIPELINE at once and reading every answer: how many came, and whether its
 *  connection was closed before the last. */
function pipelining(url: string) {
  const { hostname, port } = new URL(url);
  const c = { answers: 0, cut: false, done: false };
  let text = '';
  const socket = connect(Number(port), hostname, () => socket.write(PIPELINE));
  socket.setEncoding('latin1');
  socket.on('error', () => undefined);
  socket.on('data', (d: string) => {
    text += d;
    c.answers = text.split('HTTP/1.1 ').length - 1;
    if (c.answers === COUNT) { c.done = true; socket.destroy(); }
  });
  socket.on('close', () => { if (!c.done) { c.cut = true; c.done = true; } });
  return c;
}

it('closes no honest pipelining client for a newcomer at the bound while its requests wait their turn or their answers wait behind one not made: every answer comes, the newcomer is refused', async () => {
  const MAX = 2;
  let release = () => undefined as void;
  const held = new Promise<void>((resolve) => { release = resolve; });
  let answered = 0;
  const r = await startReference({
    connections: { max: MAX },
    observer: {
      ownRoute: (q) => (q.url === HOLD ? held.then(() => ({ status: 200, headers: { 'content-type': 'text/plain' }, body: 'held' })) : undefined),
      answered: () => { answered++; },
    },
  });
  try {
    const clients = Array.from({ length: MAX }, () => pipelining(r.url));
    // Every request but the held one answered, those answers waiting behind it.
    await until(() => answered === MAX * (COUNT - 1), 'every request behind the held one to be answered');
    const newcomer = await honest(r.url);
    release();
    await until(() => clients.every((c) => c.done), 'every pipelining client to be answered or cut');
    const figures = { cut: clients.filter((c) => c.cut).length, answers: clients.map((c) => c.answers), stalled: r.connections.stalled, refused: r.connections.refused, newcomer };
    expect(figures).toEqual({ cut: 0, answers: [COUNT, COUNT], stalled: 0, refused: 1, newcomer: expect.stringMatching(/^E/) });
  } finally {
    release();
    await r.close();
  }
});
