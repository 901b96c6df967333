// replay.sh and the values a run was given, found missing by a review: a probe on /json/reply/… with
// supplied login values was "not replayed" (its route was not read as the operation's); a supplied
// value holding a tab was sent raw by the script's json_text, where the run had sent it escaped as
// JSON.stringify does (the target then answered 400 to the replay alone).
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseConfig, shardOptions } from '../lib/cli/config.js';
import { openSession, selectedChecks, setupOf } from '../lib/cli/session.js';
import { runConformance } from '../lib/engine/run.js';
import { startReference, type ReceivedRequest, type RunningReference } from '../lib/reference/server.js';
import { FAULTS } from '../lib/reference/variants.js';
import { REPLAY_FILE } from '../lib/reporting/replay-script.js';

const sh = (script: string, env: Record<string, string>) => new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
  execFile('sh', [script], { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 120_000 }, (e, stdout, stderr) =>
    resolve({ code: e ? (typeof e.code === 'number' ? e.code : -1) : 0, stdout, stderr }));
});

const received: ReceivedRequest[] = [];
let ref: RunningReference;
const dirs: string[] = [];
beforeAll(async () => {
  ref = await startReference({
    variants: FAULTS.filter((f) => ['login-reply-missing', 'json-guid-dashed-at-depth'].includes(f.name)),
    observer: { ownRoute: (r) => { received.push(r); return undefined; } },
  });
});
afterAll(async () => {
  await ref.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

it('replays the /json/reply/ probe and the custom route\'s with LOGIN_USER_NAME holding a tab and a newline: the bodies the run sent, its answers again', async () => {
  const values = { LOGIN_USER_NAME: 'carol\tqu1nn\n', LOGIN_SEARCH_VALUES: 'z"z\\9\u0001' };
  const dir = mkdtempSync(join(tmpdir(), 'replay-supplied-'));
  dirs.push(dir);
  const parsed = parseConfig(['--base-url', ref.url, '--report-dir', dir, '--reports', 'summary', '--quiet', '--only', 'ROUTE-LOGIN-REPLY,JSON-GUID'], values);
  if (parsed.ok !== true) throw new Error(`configuration refused: ${JSON.stringify(parsed)}`);
  const session = openSession(setupOf(parsed.config, dir, { baseUrl: ref.url, description: 'deployment' }));
  const { ca: _ca, generate: _g, ...settings } = parsed.config;
  const result = await runConformance({ ...settings, baseUrl: ref.url, checks: selectedChecks(parsed.config), extraHeaders: {}, ...shardOptions(parsed.config), useProxyEnv: false, ...session.engine() });
  await session.write(result, {});
  const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as { checks: { id: string; status: string; evidence: { exchange: string }[] }[]; exchanges: { id: string; url: string; status?: number; responseSha256?: string }[] };
  const failed = summary.checks.filter((c) => c.status === 'failed').map((c) => c.id).sort();
  expect(failed).toEqual(['JSON-GUID', 'ROUTE-LOGIN-REPLY']);
  const sentByRun = new Map(received.map((r) => [r.url, r.body]));
  const from = received.length;
  const r = await sh(join(dir, REPLAY_FILE), values);
  const lines = summary.checks.filter((c) => c.status === 'failed').map((c) => {
    const ex = summary.exchanges.find((e) => e.id === c.evidence[0]!.exchange)!;
    return `${c.id} (MUST) ${ex.id}: ${ex.status} sha256 ${ex.responseSha256} (as in the run)`;
  });
  expect([r.code, r.stderr, r.stdout.trim().split('\n').sort()]).toEqual([0, '', lines.sort()]);
  // Each replayed body is the run's, to the byte.
  const replayed = received.slice(from);
  expect(replayed.map((q) => q.body === sentByRun.get(q.url) && q.body?.includes('\\t'))).toEqual(replayed.map(() => true));
});
