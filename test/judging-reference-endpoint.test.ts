// GET /__conformance/report of the judging reference (`npm run reference -- --judge-clients`), over
// the real CLI: it answers only a caller that addressed the reference by its own address and sent
// no Origin (no web page, no rebound host name), and writes the reports at most once per batch of
// calls: concurrent calls share one write, and a call with nothing new answers from the last write.
import { request } from 'node:http';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPORT_ROUTE, WRITE_HEADER } from '../lib/cli/judging-reference.js';
import { servingProgram, type Serving } from './helpers/cli.js';

interface Answer { status: number; type: string | undefined; write: string | undefined; body: string }

/** A GET with exactly these headers (fetch would not let a caller set Host). */
const get = (url: string, path: string, headers: Record<string, string>): Promise<Answer> => new Promise((resolve, reject) => {
  const u = new URL(url);
  const req = request({ host: u.hostname, port: u.port, path, method: 'GET', headers, setHost: false, agent: false }, (res) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'], write: res.headers[WRITE_HEADER] as string | undefined, body: Buffer.concat(chunks).toString('utf8') }));
  });
  req.on('error', reject);
  req.end();
});

let serving: Serving;
let url: string;
let host: string;
let reportDir: string;
beforeAll(async () => {
  // Summary only (--reports): what the route answers with; the presentation would be most of each write.
  reportDir = mkdtempSync(join(tmpdir(), 'judging-endpoint-'));
  serving = servingProgram('cli/reference', ['--port', '0', '--judge-clients', '--reports', 'summary', '--report-dir', reportDir]);
  url = await serving.url;
  host = new URL(url).host;
  // One client request, so that the reports have something to say.
  const r = await fetch(`${url}/user/confirmemail`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ recoveryToken: 'x', ownerId: 1 }) });
  await r.arrayBuffer();
}, 60_000);
afterAll(async () => { serving.child.kill('SIGTERM'); await serving.exit; });

describe('GET /__conformance/report refuses callers that did not address this reference', () => {
  it('a Host other than the listening address is refused with 403 and one line', async () => {
    for (const other of ['attacker.example', `attacker.example:${new URL(url).port}`, '127.0.0.1:1', `${host}, attacker.example`]) {
      const a = await get(url, REPORT_ROUTE, { host: other });
      expect([a.status, a.type, a.body], other).toEqual([403, 'text/plain; charset=utf-8', `refused: ${REPORT_ROUTE} answers only requests whose Host is ${host} (the address it listens on)\n`]);
    }
    // No Host at all: Node's HTTP server refuses an HTTP/1.1 request without one before any route.
    const none = await get(url, REPORT_ROUTE, {});
    expect(none.status).toBe(400);
  });

  it('any request with an Origin header is refused with 403 and one line, whatever its Host', async () => {
    for (const origin of ['https://attacker.example', url, 'null']) {
      const a = await get(url, REPORT_ROUTE, { host, origin });
      expect([a.status, a.type, a.body], origin).toEqual([403, 'text/plain; charset=utf-8', `refused: ${REPORT_ROUTE} answers no request with an Origin header (a web page's request)\n`]);
    }
  });

  it('the listening address, or localhost with its port, is served', async () => {
    const a = await get(url, REPORT_ROUTE, { host });
    expect(a.status).toBe(200);
    expect(JSON.parse(a.body)).toMatchObject({ mode: 'traffic' });
    const local = await get(url, REPORT_ROUTE, { host: `localhost:${new URL(url).port}` });
    expect(local.status).toBe(200);
  });
});

describe('GET /__conformance/report writes at most once per batch of calls', () => {
  it('20 concurrent calls share one write; a later call with nothing new answers from it; a new client request makes the next call write again', async () => {
    // Something new since any earlier write: this batch has to write.
    await (await fetch(`${url}/user/confirmemail`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"recoveryToken":"y","ownerId":2}' })).arrayBuffer();
    const batch = await Promise.all(Array.from({ length: 20 }, () => get(url, REPORT_ROUTE, { host })));
    expect(batch.map((a) => a.status)).toEqual(Array(20).fill(200));
    const writes = new Set(batch.map((a) => a.write));
    expect(writes.size).toBe(1);
    expect(new Set(batch.map((a) => a.body)).size).toBe(1);
    const [write] = writes;
    expect(write).toMatch(/^\d+$/);
    // Nothing judged since: the same write, the same summary.
    const again = await get(url, REPORT_ROUTE, { host });
    expect([again.write, again.body]).toEqual([write, batch[0]!.body]);
    // A new exchange: the next call writes anew, and its summary counts it.
    await (await fetch(`${url}/user/confirmemail`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"recoveryToken":"z","ownerId":3}' })).arrayBuffer();
    const after = await get(url, REPORT_ROUTE, { host });
    expect(after.write).toBe(String(Number(write) + 1));
    const count = (a: Answer) => (JSON.parse(a.body) as { counts: { exchanges: { exchanges: number } } }).counts.exchanges.exchanges;
    expect(count(after)).toBe(count(again) + 1);
    // --reports summary: summary.json and exchanges.json (the replay script and the manifest of the files beside them), nothing else.
    expect(readdirSync(reportDir).filter((f) => !f.startsWith('.')).sort()).toEqual(['exchanges.json', 'manifest.json', 'replay.sh', 'summary.json']);
  }, 120_000);
});
