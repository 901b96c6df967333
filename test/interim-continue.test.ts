// A target may send a 100 (Continue) nobody asked for before its answer (RFC 9110 15.2: "A client MUST
// be able to parse one or more 1xx responses received prior to a final response, even if the client
// does not expect one"). The harness's HTTP client (undici) closes the connection there instead: that
// is the harness's limit, not a fault of the target, so those answers are not judged and the run says
// INCOMPLETE (exit 2) with the reason; it said NOT CONFORMANT (exit 1), 11 MUST checks failed.
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEAN, runCli } from './helpers/cli.js';
import { useReference } from './helpers/reference.js';

const reference = useReference();
let front: Server;
let url = '';

beforeAll(async () => {
  // The reference's answers, each after a 100 (Continue) written at once (Node's writeContinue).
  front = createServer((req, res) => {
    res.writeContinue();
    const to = new URL(reference.url);
    const upstream = request({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode!, answer.rawHeaders);
      answer.pipe(res);
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(front.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => front.close(() => resolve())));

describe('a target that sends a 100 (Continue) unasked before each answer', () => {
  it('fails no check: the answers are not judged, the verdict is INCOMPLETE (exit 2), and the skips name RFC 9110 15.2', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'interim-continue-'));
    const run = await runCli(['--base-url', url, '--report-dir', dir, ...LEAN]);
    expect(run.stderr).toMatch(/^conformance: run incomplete: /);
    expect(run.code).toBe(2);
    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as { verdict: string; checks: { id: string; status: string; message: string }[] };
    expect(summary.verdict).toBe('incomplete');
    expect(summary.checks.filter((r) => r.status === 'failed').map((r) => r.id)).toEqual([]);
    const route = summary.checks.find((r) => r.id === 'ROUTE-LOGIN-POST')!;
    expect(route).toMatchObject({ status: 'skipped' });
    expect(route.message).toContain('RFC 9110 15.2');
  });
});
