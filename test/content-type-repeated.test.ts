// A target that sends Content-Type twice (RFC 9110 8.3: a singleton field): the first line right,
// the second not. The harness keeps repeated fields joined with ", "; the route checks must see two
// values there, not the first line's media type.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_NAMESPACES } from '../lib/contract/namespaces.js';
import { runConformance, type RunResult } from '../lib/engine/run.js';
import { useReference } from './helpers/reference.js';

const reference = useReference();
let run: RunResult;
const front = createServer(async (req, res) => {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const headers = Object.fromEntries(Object.entries(req.headers).filter(([k, v]) => typeof v === 'string' && !['host', 'accept-encoding'].includes(k))) as Record<string, string>;
  const got = await fetch(reference.url + req.url, { method: req.method, headers, ...(chunks.length ? { body: Buffer.concat(chunks) } : {}) });
  const body = Buffer.from(await got.arrayBuffer());
  // The first line with a parameter, as a lenient reader of a malformed list would read it.
  const type = got.headers.get('content-type')?.split(';')[0];
  res.writeHead(got.status, [...(type ? ['Content-Type', `${type}; charset=utf-8`, 'Content-Type', 'text/html'] : []), 'Content-Length', String(body.length)]);
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

describe('a second Content-Type field line', () => {
  it('fails the route checks of JSON and SOAP answers, naming both values', () => {
    const message = (id: string) => run.results.find((r) => r.check.id === id)?.message;
    expect(run.verdict).toBe('non-conformant');
    // Each field quoted as it came, not the joined value no one sent.
    expect(message('ROUTE-LOGIN-POST')).toContain('2 Content-Type fields ("application/json; charset=utf-8", "text/html"); one is allowed (RFC 9110 8.3), expected application/json');
    expect(message('ROUTE-SOAP-POST')).toContain('2 Content-Type fields ("application/xml; charset=utf-8", "text/html"); one is allowed (RFC 9110 8.3), expected application/xml');
  });
});
