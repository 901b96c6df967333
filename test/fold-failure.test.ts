// A fold that throws on the run's thread (a progress reporter, a tally) fails the run with its cause:
// the exchanges waiting for their turn to be folded are woken to fail with it. Left waiting, they held
// every slot and nothing kept the process alive: the run ended with no verdict (judge-pool.ts's twin).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_NAMESPACES } from '../lib/contract/namespaces.js';
import { runConformance } from '../lib/engine/run.js';
import { startReference, type RunningReference } from '../lib/reference/server.js';
import { referenceAnswer } from './helpers/front.js';

const CONCURRENCY = 4;

describe('a run whose fold throws while later exchanges wait their turn', () => {
  let ref: RunningReference;
  let front: Server;
  let url: string;
  beforeAll(async () => {
    ref = await startReference({ port: 0 });
    // The run's first request (POST /supportstateuser) is answered only once the other requests in
    // flight with it have been: they are then waiting for it to be folded, holding every slot.
    let others = 0;
    let release: (() => void) | undefined;
    let held = false;
    front = createServer((req, res) => {
      void (async () => {
        const answer = await referenceAnswer(ref.url, req);
        if (!held && req.method === 'POST' && req.url === '/supportstateuser') {
          held = true;
          await new Promise<void>((r) => { release = r; if (others >= CONCURRENCY - 1) r(); });
        }
        res.on('finish', () => { if (++others >= CONCURRENCY - 1) release?.(); });
        res.writeHead(answer.status, answer.type ? { 'content-type': answer.type } : {}).end(answer.body);
      })();
    });
    await new Promise<void>((ok) => front.listen(0, '127.0.0.1', ok));
    url = `http://127.0.0.1:${(front.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    front.closeAllConnections();
    await new Promise((r) => front.close(r));
    await ref.close();
  });

  it('rejects with the fold\'s error, never hanging', async () => {
    const run = runConformance({
      baseUrl: url, namespaces: DEFAULT_NAMESPACES, values: {}, extraHeaders: {}, timeoutMs: 30_000, maxBodyBytes: 1 << 20, concurrency: CONCURRENCY,
      onProgress: () => { throw new Error('the progress line failed'); },
    });
    let timer: NodeJS.Timeout | undefined;
    const hung = new Promise<string>((r) => { timer = setTimeout(() => r('still unsettled after 60 s'), 60_000); });
    const outcome = await Promise.race([run.then(() => 'resolved', (e: Error) => e.message), hung]);
    clearTimeout(timer);
    expect(outcome).toBe('the progress line failed');
  }, 90_000);
});
