// An answer whose head came but whose body stalled, was too slow or was cut off (Exchange.answerHead,
// a transport error body-timeout, reset or aborted) was replayed beside "the run got 200 -": a status
// and no hash, as if the run had read an empty body it could compare. replay.sh now says the run's
// body did not come whole, and why, and compares the replay's status alone, as for one past the cap.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CATALOGUE } from '../lib/checks/catalogue.js';
import { DEFAULT_NAMESPACES } from '../lib/contract/namespaces.js';
import { runConformance } from '../lib/engine/run.js';
import type { Exchange, TransportError } from '../lib/http/exchange.js';
import { Redactor } from '../lib/reporting/redact.js';
import { replayScript } from '../lib/reporting/replay-script.js';
import { buildReport } from '../lib/reporting/report.js';

const ANSWER = '{"ok":true}';
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((_req, res) => { res.writeHead(200, { 'content-type': 'application/json' }); res.end(ANSWER); });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }));

const sh = (script: string) => new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
  execFile('sh', [script], { env: { PATH: process.env.PATH ?? '' }, timeout: 60_000 }, (e, stdout, stderr) =>
    resolve({ code: e ? (typeof e.code === 'number' ? e.code : -1) : 0, stdout, stderr }));
});

/** The replay.sh lines of a run that recorded one login whose answer head came (status `status`) and
 *  whose body did not come whole (`error`). */
async function replayedLines(status: number, error: TransportError): Promise<string[]> {
  const ex: Exchange = {
    id: 'har.1', title: 'recorded login', origin: { source: 'har', vouched: false },
    request: { method: 'POST', url: `${base}/supportstateuser`, headers: { 'content-type': 'application/json' }, body: '{}' },
    answerHead: { status, headers: { 'content-type': 'application/json; charset=utf-8' } }, error,
    startedAt: new Date(0).toISOString(), durationMs: 1,
  };
  const run = await runConformance({ baseUrl: base, recorded: [ex], mode: 'traffic', checks: CATALOGUE, namespaces: DEFAULT_NAMESPACES, values: {}, extraHeaders: {}, timeoutMs: 10_000, maxBodyBytes: 1 << 20, probes: false });
  const report = buildReport(run, { redactor: new Redactor({ showPersonalData: false, secrets: [] }), harness: { name: 'h', version: '0' }, targetDescription: 't', configuration: { timeoutMs: 10_000 } });
  const file = join(mkdtempSync(join(tmpdir(), 'replay-body-not-whole-')), 'replay.sh');
  writeFileSync(file, replayScript(report));
  const r = await sh(file);
  expect([r.code, r.stderr]).toEqual([0, '']);
  const lines = r.stdout.trim().split('\n');
  expect(lines.length).toBeGreaterThan(0);
  return lines;
}

const HASH = createHash('sha256').update(ANSWER).digest('hex');

it('replay.sh says the run\'s answer body did not come whole, and why, and compares the replay\'s status alone (the same status)', async () => {
  for (const line of await replayedLines(200, { kind: 'body-timeout', message: 'response body stalled for 10 s' })) {
    expect(line).toMatch(/ har\.1: /);
    expect(line.slice(line.indexOf(' har.1: '))).toBe(` har.1: 200 sha256 ${HASH} (status as in the run, whose answer body did not come whole: response body stalled for 10 s; no body to compare with)`);
  }
}, 60_000);

it('replay.sh says what the run got where the replay\'s status differs: its status, and that its body did not come whole, and why (reset, aborted)', async () => {
  for (const error of [{ kind: 'reset', message: 'connection closed by 127.0.0.1:9 before the response was complete' }, { kind: 'aborted', message: 'no complete response within 30 s' }] as const) {
    for (const line of await replayedLines(503, error)) {
      expect(line.slice(line.indexOf(' har.1: '))).toBe(` har.1: 200 sha256 ${HASH} (the run got 503, its answer body did not come whole: ${error.message})`);
    }
  }
}, 60_000);
