// A HAR entry whose answer was not recorded (no response, a response without its body, a body text
// holding a lone surrogate) was shown by replay.sh as if the run had got "no answer": a replay that
// was answered read as a difference from an answer nobody saw, and one that was not read "as in the
// run". Now replay.sh says the run's answer is not there to compare, and shows the replay's.
import { execFile } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { runCli } from './helpers/cli.js';
import { useReference } from './helpers/reference.js';

const sh = (script: string, env: Record<string, string> = {}) => new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
  execFile('sh', [script], { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 60_000 }, (e, stdout, stderr) =>
    resolve({ code: e ? (typeof e.code === 'number' ? e.code : -1) : 0, stdout, stderr }));
});

const ref = useReference();

/** A recorded POST of `body` labelled `type`, answered as `response` says (a HAR response object). */
const entry = (type: string, body: string, response: Record<string, unknown>, base = ref.url) => ({
  startedDateTime: '2026-11-25T09:00:00.000Z', time: 5,
  request: { method: 'POST', url: `${base}/supportstateuser`, headers: [{ name: 'Content-Type', value: type }], postData: { mimeType: type, text: body } },
  response,
});

/** An address nothing listens on (a port just freed): a replay to it gets no answer. */
async function closedBase(): Promise<string> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return `http://127.0.0.1:${port}`;
}

it('replay.sh on HAR entries whose answers were not recorded: each replay\'s answer is shown (no answer too), and said to have no recorded answer to compare with', async () => {
  const closed = await closedBase();
  const dir = mkdtempSync(join(tmpdir(), 'replay-answer-not-recorded-'));
  const har = join(dir, 'recorded.har');
  writeFileSync(har, JSON.stringify({ log: { version: '1.2', entries: [
    // Each fails one request check of its own, so replay.sh replays each.
    // No response recorded, replayed to an address that gives no answer either: not "as in the run".
    entry('text/plain', '{"userName":"jdoe.support"}', { status: 0, headers: [], content: {} }, closed),
    entry('application/json', '{"userName":"jdoe.support","extra":1}', { status: 200, headers: [{ name: 'Content-Type', value: 'application/json' }], content: { mimeType: 'application/json' } }),
    entry('application/json', '{"userName":5}', { status: 200, headers: [{ name: 'Content-Type', value: 'application/json' }], content: { mimeType: 'application/json', text: '{"a":"\ud800"}' } }),
  ] } }));
  const r = await runCli(['--har', har, '--report-dir', join(dir, 'out'), '--reports', 'summary', '--quiet', '--show-personal-data']);
  expect(r.code, r.stderr).toBe(1);
  const summary = JSON.parse(readFileSync(join(dir, 'out', 'summary.json'), 'utf8')) as { checks: { id: string; status: string }[]; exchanges: { id: string; error?: string }[] };
  expect(summary.checks.filter((c) => c.status === 'failed').map((c) => c.id)).toEqual(['REQ-JSON-CONTENT-TYPE', 'REQ-JSON-TYPES', 'REQ-JSON-UNKNOWN-MEMBERS']);
  expect(summary.exchanges.map((e) => e.error)).toEqual(['no response recorded in the HAR', 'no response body recorded in the HAR', expect.stringMatching(/^the response body recorded holds a lone surrogate at character 6/)]);
  const out = await sh(join(dir, 'out', 'replay.sh'));
  expect(out.code).toBe(0);
  const sha = '[0-9a-f]{64}';
  const none = "\\(the run's answer was not recorded: nothing to compare with\\)";
  expect(out.stdout).toMatch(new RegExp(`^REQ-JSON-CONTENT-TYPE \\(MUST\\) har\\.1: no answer sha256 - ${none}\n`
    + `REQ-JSON-TYPES \\(MUST\\) har\\.3: 400 sha256 ${sha} ${none}\n`
    + `REQ-JSON-UNKNOWN-MEMBERS \\(SHOULD\\) har\\.2: 200 sha256 ${sha} ${none}\n$`));
}, 60_000);
