// A merged check's replay is the request of the finding its message names first. The merge orders
// the shards' findings as one run meets them (by account), so the first may be a later shard's; the
// replay was the first failing shard's, another account's request, printed beside "first: case-2"
// and run by replay.sh under case 2's label, status and SHA-256.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { FAULTS } from '../lib/reference/variants.js';
import { runCli, runProgram } from './helpers/cli.js';
import { useReference } from './helpers/reference.js';

// A user name with an apostrophe is answered 500: accounts 2 (shard 2) and 3 (shard 1) fail ROUTE-LOGIN-POST.
const target = useReference({ variants: FAULTS.filter((f) => f.name === 'apostrophe-500') });
const NAMES = ['alice', "o'brien", "d'arcy", 'bob'];

interface Check { id: string; status: string; replay?: string; evidence: { exchange: string; case?: number }[] }
const checkIn = (dir: string, id: string) => (JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as { checks: Check[] }).checks.find((c) => c.id === id)!;

it('a merged failure replays the request of the account its message names first, though a later shard met it', async () => {
  const work = mkdtempSync(join(tmpdir(), 'merge-replay-'));
  const accounts = join(work, 'accounts.jsonl');
  writeFileSync(accounts, `${NAMES.map((userName) => JSON.stringify({ SupportStateUserLoginRequest: { userName, searchValues: 's' } })).join('\n')}\n`);
  // Personal data shown: each replay holds its account's user name, so which account it sends is plain.
  const shards = await Promise.all(['1/2', '2/2'].map(async (shard, i) => {
    const dir = join(work, `shard-${i + 1}`);
    const r = await runCli(['--base-url', target.url, '--accounts', accounts, '--shard', shard, '--run-id', 'merge-replay', '--show-personal-data', '--report-dir', dir, '--quiet', '--reports', 'summary']);
    expect(r.code, r.stderr).toBe(1);
    return dir;
  }));
  const merged = join(work, 'merged');
  const m = await runProgram('cli/report', ['--merge', ...shards, '--report-dir', merged, '--reports', 'summary']);
  expect(m.code, m.stderr).toBe(1);

  const check = checkIn(merged, 'ROUTE-LOGIN-POST');
  expect(check.evidence[0]).toMatchObject({ exchange: 'case-2.login', case: 2 });
  // Shard 2 met account 2: its replay is the merged one, the one sending o'brien.
  expect(check.replay).toBe(checkIn(shards[1]!, 'ROUTE-LOGIN-POST').replay);
  expect(check.replay).toContain(`"userName":"o'\\''brien"`);
  expect(m.stdout).toMatch(/first: case-2\.login \(case 2\).*\n(?: {6}.*\n)*? {6}replay: curl .*o'\\''brien/);

  const out = await new Promise<string>((resolve) => { execFile('sh', [join(merged, 'replay.sh')], { timeout: 60_000 }, (_e, stdout) => resolve(stdout)); });
  expect(out).toMatch(/^ROUTE-LOGIN-POST \(MUST\) case-2\.login: 500 sha256 [0-9a-f]{64} \(as in the run\)$/m);
}, 300_000);
