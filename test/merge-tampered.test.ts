// A shard whose summary.json was rewritten along with its manifest's hash (so the manifest passes)
// is refused in one line naming the file, never a JavaScript error or a quote of the file's text.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli, runProgram } from './helpers/cli.js';
import { forgeSummary } from './helpers/outputs.js';
import { useReference } from './helpers/reference.js';

const work = mkdtempSync(join(tmpdir(), 'merge-tampered-'));
const accounts = join(work, 'accounts.jsonl');
const reference = useReference();
const shard = (i: number) => join(work, `shard-${i}`);

const merge = (...dirs: string[]) => runProgram('cli/report', ['--merge', ...dirs, '--report-dir', mkdtempSync(join(work, 'merged-')), '--reports', 'summary']);

beforeAll(async () => {
  writeFileSync(accounts, `${['ana', 'bo'].map((u) => JSON.stringify({ SupportStateUserLoginRequest: { userName: u } })).join('\n')}\n`);
  const runs = await Promise.all([1, 2].map((i) => runCli(['--base-url', reference.url, '--accounts', accounts, '--shard', `${i}/2`, '--run-id', 'tampered', '--reports', 'summary', '--report-dir', shard(i)])));
  expect(runs.map((r) => r.code)).toEqual([0, 0]);
});

describe('a forged shard', () => {
  it('a summary.json cut short: one line naming it and the offset where its JSON breaks, no text of it, exit 2', async () => {
    const whole = readFileSync(join(shard(2), 'summary.json'), 'utf8');
    forgeSummary(shard(2), whole.slice(0, whole.indexOf('"verdict"') + 14));
    const r = await merge(shard(1), shard(2));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`^report: ${join(shard(2), 'summary.json').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} is not JSON: [^\\n"]* at offset \\d+\\n$`));
    forgeSummary(shard(2), whole);
  });

  it('a summary.json whose counts are a string: one line saying a shard\'s summary.json is not one the harness writes, exit 2', async () => {
    const s = JSON.parse(readFileSync(join(shard(1), 'summary.json'), 'utf8')) as Record<string, unknown>;
    forgeSummary(shard(1), JSON.stringify({ ...s, counts: 'x' }));
    const r = await merge(shard(1), shard(2));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^report: cannot merge: a shard's summary\.json is not one this harness writes \([^\n]*\)\n$/);
  });
});
