// A server in front of the reference that changes some of its answers, and a probe run through it.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import { DEFAULT_NAMESPACES } from '../../lib/contract/namespaces.js';
import { runConformance, type RunResult } from '../../lib/engine/run.js';

/** The reference's answer to a request a front server received: its status, Content-Type and body
 *  (decoded: the request goes on without its Accept-Encoding). */
export async function referenceAnswer(referenceUrl: string, req: IncomingMessage): Promise<{ status: number; type: string | undefined; body: Buffer }> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const headers = Object.fromEntries(Object.entries(req.headers).filter(([k, v]) => typeof v === 'string' && !['host', 'accept-encoding', 'content-length'].includes(k))) as Record<string, string>;
  const got = await fetch(referenceUrl + req.url, { method: req.method, headers, ...(chunks.length ? { body: Buffer.concat(chunks) } : {}) });
  return { status: got.status, type: got.headers.get('content-type') ?? undefined, body: Buffer.from(await got.arrayBuffer()) };
}

/** A front server answering as `answer` does, for the suite, and the probes run through it once
 *  (read `run` inside tests). */
export function useFront(answer: (req: IncomingMessage, res: ServerResponse) => Promise<void> | void): { readonly run: RunResult } {
  const front = createServer((req, res) => { void answer(req, res); });
  let result: RunResult | undefined;
  beforeAll(async () => {
    await new Promise<void>((ok) => front.listen(0, '127.0.0.1', ok));
    result = await runConformance({
      baseUrl: `http://127.0.0.1:${(front.address() as AddressInfo).port}`, namespaces: DEFAULT_NAMESPACES, values: {}, extraHeaders: {},
      timeoutMs: 60_000, maxBodyBytes: 10 * 1024 * 1024, concurrency: 8,
    });
  });
  afterAll(() => new Promise<void>((done) => { front.closeAllConnections(); front.close(() => done()); }));
  return { get run() { if (!result) throw new Error('the run has not ended'); return result; } };
}
