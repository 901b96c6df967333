// One client pipelining many requests on one connection of the judging reference: its requests take
// turns with other clients' (PIPELINED_PER_TURN a turn), so another client's one request is answered
// before most of them, not after all (10 000 held every other answer for ~10 s); past MAX_WAITING
// waiting the connection is cut, and the requests never answered are stated in the reports.
import { mkdtempSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startJudgingReference } from '../lib/cli/judging-reference.js';
import { MAX_WAITING, PIPELINED_PER_TURN } from '../lib/reference/server.js';
import { rawExchange } from './helpers/raw-target.js';
import { until } from './helpers/wait.js';

const LOGIN = '{"userName":"jdoe.support","searchValues":"x"}';
const CONFIRM = '{"recoveryToken":"rt-123","verifyEmail":"jane@example.org","ownerId":42,"isForMM":false}';
const request = (path: string, body: string, close = false, expects = false) => `POST ${path} HTTP/1.1\r\nHost: judging.test\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n${close ? 'Connection: close\r\n' : ''}${expects ? 'Expect: 100-continue\r\n' : ''}\r\n${body}`;

/** Sends `count` requests pipelined on one connection; resolves once the first answer has come (the
 *  reference is answering them), or the connection is closed. */
function pipeline(url: string, count: number, expects = false): Promise<{ readonly socket: ReturnType<typeof connect>; readonly answers: () => number }> {
  const { hostname, port } = new URL(url);
  let text = '';
  const socket = connect(Number(port), hostname);
  const piped = { socket, answers: () => text.split('HTTP/1.1 200').length - 1 };
  socket.setEncoding('latin1');
  socket.on('error', () => undefined);
  socket.write(request('/supportstateuser', LOGIN, false, expects).repeat(count));
  return new Promise((resolve) => {
    socket.on('data', (d: string) => { text += d; if (piped.answers()) resolve(piped); });
    socket.on('close', () => resolve(piped));
  });
}

describe('the judging reference with a client pipelining on one connection', () => {
  it('answers another client\'s one request after a few turns of the pipelined ones, not after all of them', async () => {
    const lines: string[] = [];
    const r = await startJudgingReference({ reportDir: '/nonexistent-never-written', print: (l) => lines.push(l) });
    const count = MAX_WAITING - 1;
    try {
      const piped = await pipeline(r.url, count);
      const answer = await rawExchange(r.url, request('/user/confirmemail', CONFIRM, true));
      expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 200 OK');
      // Each request's line is printed as it is answered: the pipelined ones answered before the other's.
      const before = lines.findIndex((l) => l.includes('POST /user/confirmemail'));
      expect(lines.slice(0, before).every((l) => l.includes('POST /supportstateuser'))).toBe(true);
      expect(before).toBeLessThan(8 * PIPELINED_PER_TURN);
      // And every pipelined one is answered and judged in the end, in order.
      await until(() => piped.answers() === count, 'every pipelined request to be answered');
      expect(lines.filter((l) => l.includes('POST /supportstateuser'))).toHaveLength(count);
      piped.socket.destroy();
    } finally {
      await r.close();
    }
  });

  // Requests expecting 100 (Continue) too: they had bypassed the turns, all answered and judged at once.
  it.each([false, true])(`cuts a connection past ${MAX_WAITING} requests waiting their turn, and the reports state those never answered (Expect: 100-continue: %s)`, async (expects) => {
    const r = await startJudgingReference({ reportDir: mkdtempSync(join(tmpdir(), 'judging-reference-pipelining-')), reports: new Set(['summary']), print: () => undefined });
    try {
      const piped = await pipeline(r.url, 3 * MAX_WAITING, expects);
      await until(() => piped.socket.destroyed, 'the connection to be cut');
      const { report } = await r.stop();
      const line = report.warnings.find((w) => w.includes('pipelined request(s) were never answered'));
      expect(line).toMatch(new RegExp(`^\\d+ pipelined request\\(s\\) were never answered, so not judged: \\d+ on connection\\(s\\) cut with more than ${MAX_WAITING} waiting their turn`));
      // What was answered was judged; what was not is counted: together, every request sent or fewer
      // (Node reads no more of a connection once it is cut).
      const never = Number(/^(\d+)/.exec(line!)![1]);
      const judged = report.counts.exchanges.exchanges;
      expect(judged).toBeLessThan(MAX_WAITING);
      expect(never).toBeGreaterThan(MAX_WAITING);
      expect(judged + never).toBeLessThanOrEqual(3 * MAX_WAITING);
    } finally {
      await r.close();
    }
  });

  it('counts the pipelined requests whose client closed its connection while they waited: with those judged, every one sent', async () => {
    const r = await startJudgingReference({ reportDir: mkdtempSync(join(tmpdir(), 'judging-reference-pipelining-')), reports: new Set(['summary']), print: () => undefined });
    try {
      const count = MAX_WAITING / 2;
      const piped = await pipeline(r.url, count);
      piped.socket.destroy();
      await until(() => r.connections.open === 0, 'the connection to close');
      const { report } = await r.stop();
      const line = report.warnings.find((w) => w.includes('pipelined request(s) were never answered'));
      const never = Number(/^(\d+) pipelined request\(s\) were never answered, so not judged: \1 whose connection closed while they waited$/.exec(line ?? '')?.[1]);
      expect(never).toBeGreaterThan(0);
      expect(report.counts.exchanges.exchanges + never).toBe(count);
    } finally {
      await r.close();
    }
  });
});
