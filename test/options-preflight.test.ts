// The OPTIONS routes are asked as a browser asks them, a CORS preflight: a deployment whose CORS
// layer answers preflights (204 with the CORS headers) and a bare OPTIONS 405, as ASP.NET Core's
// UseCors does, serves every browser right and passes; it had failed two MUST checks.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_NAMESPACES } from '../lib/contract/namespaces.js';
import { PREFLIGHT } from '../lib/engine/probes.js';
import { runConformance, type RunResult } from '../lib/engine/run.js';
import { useReference } from './helpers/reference.js';

const reference = useReference();
let run: RunResult;
const seen: Record<string, string | undefined>[] = [];
const front = createServer(async (req, res) => {
  if (req.method === 'OPTIONS') {
    seen.push({ origin: req.headers.origin, method: req.headers['access-control-request-method'] });
    if (req.headers.origin === undefined || req.headers['access-control-request-method'] === undefined) { res.writeHead(405, { allow: 'POST' }).end(); return; }
    res.writeHead(204, { 'access-control-allow-origin': req.headers.origin, 'access-control-allow-methods': 'POST', 'access-control-allow-headers': 'content-type' }).end();
    return;
  }
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const headers = Object.fromEntries(Object.entries(req.headers).filter(([k, v]) => typeof v === 'string' && !['host', 'content-length'].includes(k))) as Record<string, string>;
  const got = await fetch(reference.url + req.url, { method: req.method, headers, ...(chunks.length ? { body: Buffer.concat(chunks) } : {}) });
  const body = Buffer.from(await got.arrayBuffer());
  res.writeHead(got.status, { 'content-type': got.headers.get('content-type') ?? 'text/plain', 'content-length': String(body.length) });
  res.end(body);
});

beforeAll(async () => {
  await new Promise<void>((ok) => front.listen(0, '127.0.0.1', ok));
  run = await runConformance({
    baseUrl: `http://127.0.0.1:${(front.address() as AddressInfo).port}`, namespaces: DEFAULT_NAMESPACES, values: {}, extraHeaders: {},
    timeoutMs: 60_000, maxBodyBytes: 10 * 1024 * 1024, concurrency: 8,
  });
});
afterAll(() => new Promise<void>((done) => { front.closeAllConnections(); front.close(() => done()); }));

describe('a deployment whose CORS layer answers preflights only', () => {
  it('is asked preflights, and passes the OPTIONS route checks and OPTIONS-ALLOWS-POST', () => {
    expect(seen).toEqual([{ origin: PREFLIGHT.origin, method: 'POST' }, { origin: PREFLIGHT.origin, method: 'POST' }]);
    const status = (id: string) => run.results.find((r) => r.check.id === id)?.status;
    expect(['ROUTE-LOGIN-OPTIONS', 'ROUTE-CONFIRM-OPTIONS', 'OPTIONS-ALLOWS-POST'].map(status)).toEqual(['pass', 'pass', 'pass']);
  });
});
