// An exchange whose client hangs up before its answer is whole is forwarded and not judged, and the
// reports say so in those words: it was counted under "past the bound of 20 MiB copied for judging",
// a reason that was not the cause (the room had space, and the exchange was being copied).
import { Socket } from 'node:net';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JudgeQueue, notJudgedNote } from '../lib/cli/proxy-run.js';
import { startProxy, type ForwardedExchange, type RunningProxy, type Unjudged } from '../lib/traffic/proxy.js';
import { until } from './helpers/wait.js';

const CAP = 10 * 1024 * 1024;
const REQUEST = 'POST /supportstateuser HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}';

describe('--proxy and a client that hangs up before its answer is whole', () => {
  let target: Server;
  let proxy: RunningProxy;
  /** Answers the target holds until the test lets them go. */
  const held: ServerResponse[] = [];
  const seen: ForwardedExchange[] = [];
  const unjudged: Unjudged[] = [];
  beforeAll(async () => {
    target = createServer((req, res) => { req.resume(); req.on('end', () => held.push(res)); });
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
    proxy = await startProxy({ target: url, port: 0, maxBodyBytes: CAP, timeoutMs: 30_000, onExchange: (ex) => seen.push(ex), onUnjudged: (why) => { unjudged.push(why); } });
  });
  afterAll(async () => {
    for (const res of held) res.destroy();
    await proxy.close(0);
    await new Promise((r) => target.close(r));
  });

  it('is counted as not judged because its client left, whether it left before the answer began or in its middle', async () => {
    const { hostname, port } = new URL(proxy.url);
    for (const begun of [false, true]) {
      const socket = new Socket();
      let got = '';
      socket.on('data', (d: Buffer) => { got += d.toString('latin1'); });
      socket.on('error', () => undefined);
      await new Promise<void>((r) => socket.connect(Number(port), hostname, r));
      socket.write(REQUEST);
      await until(() => held.length === 1, 'the target to have the request');
      const res = held.shift()!;
      if (begun) {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
        res.write('{"userName":');
        await until(() => got.includes('{"userName":'), 'the first bytes of the answer to reach the client');
      }
      // A reset, not an end: an end is a half-close, after which the proxy still answers (proxy-half-close).
      socket.resetAndDestroy();
      await until(() => unjudged.length === (begun ? 2 : 1), 'the proxy to count the exchange');
      res.destroy();
    }
    expect(unjudged).toEqual(['client-gone', 'client-gone']);
    expect(seen).toEqual([]);
  });

  it('the note names that reason, with its count beside the others', () => {
    const q = new JudgeQueue(1000, 2 * CAP, () => undefined);
    for (const why of ['client-gone', 'room', 'client-gone'] as const) q.notJudged(why);
    q.handed = 7;
    const run = { roomBytes: 2 * CAP, timeoutMs: 10_000, judgeStopped: false };
    expect(notJudgedNote(q, run)).toBe('3 of 10 exchange(s) forwarded were not judged (70% judged): '
      + 'past the bound of 20 MiB copied for judging across the exchanges in flight, or of 1000 waiting for the judge (1); '
      + 'the client closed its connection before its answer was whole (2); they streamed through unjudged');
    const goneOnly = new JudgeQueue(1000, 2 * CAP, () => undefined);
    goneOnly.notJudged('client-gone');
    expect(notJudgedNote(goneOnly, run)).toBe('1 of 1 exchange(s) forwarded were not judged (0% judged): the client closed its connection before its answer was whole; they streamed through unjudged');
  });
});
