// A merge takes the shards of one run only: every shard carries its run's identity (run id,
// configuration, catalogue, accounts file), a shard of another run is refused with exit 2 naming it,
// and a shard's files are hashed in its manifest.json, so an edited file is refused, named.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runIdentity } from '../lib/cli/identity.js';
import { startReference, type RunningReference } from '../lib/reference/server.js';
import { FAULTS } from '../lib/reference/variants.js';
import { runCli, runProgram } from './helpers/cli.js';

const work = mkdtempSync(join(tmpdir(), 'merge-identity-'));
const dir = (name: string) => join(work, name);
const accounts = join(work, 'accounts.jsonl');
const changedAccounts = join(work, 'changed', 'accounts.jsonl');
const lines = (names: string[]) => `${names.map((u) => JSON.stringify({ SupportStateUserLoginRequest: { userName: u } })).join('\n')}\n`;
/** No CI run id from the machine running the tests: each case sets its own. */
const NO_CI = { GITHUB_RUN_ID: '', CI_PIPELINE_ID: '', BUILD_BUILDID: '', CIRCLE_WORKFLOW_ID: '', BUILDKITE_BUILD_ID: '', RUN_ID: '' };
const summary = (d: string) => JSON.parse(readFileSync(join(d, 'summary.json'), 'utf8'));

let passing: RunningReference;
let failing: RunningReference;
/** summary.json, exchanges.json and the manifest, all a merge reads: the other outputs (the Allure
 *  child and HTML most of a run's time) are hashed by the one shard that writes them all ('full'). */
const shard = (target: RunningReference, i: number, out: string, extra: string[] = [], env: Record<string, string> = {}, file = accounts) =>
  runCli(['--base-url', target.url, '--accounts', file, '--shard', `${i}/2`, '--report-dir', dir(out), '--quiet', ...(extra.includes('--reports') ? [] : ['--reports', 'summary']), ...extra], { ...NO_CI, ...env });
const merge = (...shards: string[]) => runProgram('cli/report', ['--merge', ...shards.map(dir), '--report-dir', mkdtempSync(join(work, 'merged-')), '--reports', 'summary'], NO_CI);

beforeAll(async () => {
  writeFileSync(accounts, lines(['ana', 'bo', 'cy', 'di']));
  mkdirSync(join(work, 'changed'));
  writeFileSync(changedAccounts, lines(['ana', 'bo', 'cy', 'ed']));
  passing = await startReference();
  // The same target for every run: only the run tells the shards apart. Runs A and B, and shards
  // of run A made otherwise (another --timeout, another accounts file, other CI run ids).
  const runs = await Promise.all([
    shard(passing, 1, 'a1', ['--run-id', 'run-A']),
    shard(passing, 2, 'a2', ['--run-id', 'run-A']),
    shard(passing, 2, 'a2-timeout', ['--run-id', 'run-A', '--timeout', '5000']),
    shard(passing, 1, 'g1', [], { GITHUB_RUN_ID: '111' }),
    shard(passing, 2, 'g2', [], { GITHUB_RUN_ID: '222' }),
  ]);
  runs.push(await shard(passing, 1, 'full', ['--run-id', 'run-F', '--reports', 'summary,traceability,junit,allure']));
  expect(runs.map((r) => r.code), runs.flatMap((r) => r.stdout.match(/^ {2}✗ .*$/gm) ?? []).join('\n')).toEqual([0, 0, 0, 0, 0, 0]);
  // The accounts file edited in place between the shards: the same path, other accounts.
  writeFileSync(accounts, lines(['ana', 'bo', 'cy', 'ed']));
  expect((await shard(passing, 2, 'a2-accounts', ['--run-id', 'run-A'])).code).toBe(0);
  writeFileSync(accounts, lines(['ana', 'bo', 'cy', 'di']));
  // Run B: shard 2 of the same target, redeployed with a fault (every account's record carries a dashed guid).
  await passing.close();
  failing = await startReference({ port: Number(new URL(passing.url).port), variants: FAULTS.filter((f) => f.name === 'json-guid-dashed-at-depth'), faultRate: 1 });
  expect((await shard(failing, 2, 'b2', ['--run-id', 'run-B'])).code).toBe(1);
  // Run A's shard 2 again against the redeployed target: a shard of run A that fails.
  expect((await shard(failing, 2, 'a2-failing', ['--run-id', 'run-A'])).code).toBe(1);
}, 400_000);
afterAll(async () => { await failing?.close(); rmSync(work, { recursive: true, force: true }); });

describe('every shard carries its run\'s identity', () => {
  it('summary.json and manifest.json name the run id, where it came from, and the hashes of the configuration, catalogue and accounts', () => {
    const a1 = summary(dir('a1')).run;
    expect(a1).toEqual({ runId: 'run-A', runIdFrom: '--run-id', configurationSha256: expect.stringMatching(/^[0-9a-f]{64}$/), catalogueHash: summary(dir('a1')).catalogueHash, accountsSha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(summary(dir('a2')).run).toEqual(a1);
    expect(summary(dir('g1')).run).toMatchObject({ runId: 'GITHUB_RUN_ID=111', runIdFrom: 'GITHUB_RUN_ID', configurationSha256: a1.configurationSha256 });
    const manifest = JSON.parse(readFileSync(join(dir('a1'), 'manifest.json'), 'utf8'));
    expect(manifest.run).toEqual(a1);
    expect(Object.keys(manifest.files).sort()).toEqual(['exchanges.json', 'replay.sh', 'summary.json']);
    const full = JSON.parse(readFileSync(join(dir('full'), 'manifest.json'), 'utf8'));
    expect(full.run).toEqual(summary(dir('full')).run);
    // report.html among the files: report-files.test.ts, whose run of the embedded reference writes it.
    expect(Object.keys(full.files)).toEqual(expect.arrayContaining(['summary.json', 'exchanges.json', 'junit.xml', 'traceability.md']));
    expect(Object.keys(full.files).filter((f) => f.startsWith('allure-results/')).length).toBeGreaterThan(50);
  });

  it('without --run-id or a CI run id, the id is derived from the configuration and inputs: the same for the same inputs, another for other accounts', async () => {
    const configuration = { options: { accounts, shard: '1/2', 'report-dir': 'x' }, baseUrl: 'http://h', reportDir: 'x' };
    const one = await runIdentity(configuration, {}, {}, accounts);
    const two = await runIdentity({ ...configuration, options: { ...configuration.options, shard: '2/2', 'report-dir': 'y' }, reportDir: 'y' }, {}, {}, accounts);
    const other = await runIdentity(configuration, {}, {}, changedAccounts);
    expect(one.runIdFrom).toBe('derived from the configuration and inputs');
    expect(two.runId).toBe(one.runId);
    expect(other.runId).not.toBe(one.runId);
    expect((await runIdentity(configuration, { 'run-id': 'x' }, { GITHUB_RUN_ID: '9' }, accounts)).runId).toBe('x');
  });
});

describe('merge refuses shards of other runs, naming the odd shard (exit 2)', () => {
  it('the shards of one run merge (exit 0)', async () => {
    const m = await merge('a1', 'a2');
    expect([m.code, m.stderr]).toEqual([0, '']);
  }, 120_000);

  it('merged again into one directory with --reports summary, after a merge that failed: no output is left stating the first merge\'s verdict', async () => {
    const into = mkdtempSync(join(work, 'merged-again-'));
    const again = (second: string, reports: string) => runProgram('cli/report', ['--merge', dir('a1'), dir(second), '--report-dir', into, '--reports', reports], NO_CI);
    expect((await again('a2-failing', 'summary,traceability,junit')).code).toBe(1);
    const m = await again('a2', 'summary');
    const stated = ['summary.json', 'junit.xml', 'traceability.md'].map((f) => /NOT CONFORMANT/.test(readFileSync(join(into, f), 'utf8')));
    expect([m.code, stated, m.stderr]).toEqual([0, [false, false, false], 'note: every output is written again: the report directory\'s summary.json says NOT CONFORMANT (exit 1), the merge CONFORMANT (exit 0)\n']);
  }, 120_000);

  it('an earlier passing run\'s shard 1 with a failing run\'s shard 2', async () => {
    const m = await merge('a1', 'b2');
    expect([m.code, m.stderr]).toEqual([2, `report: cannot merge: ${dir('b2')} is not a shard of the run ${dir('a1')} belongs to: another run id, "run-B" not "run-A"\n`]);
  });

  it('a shard made with another --timeout under the same run id', async () => {
    const m = await merge('a1', 'a2-timeout');
    expect([m.code, m.stderr]).toEqual([2, expect.stringMatching(new RegExp(`^report: cannot merge: ${dir('a2-timeout')} is not a shard of the run ${dir('a1')} belongs to: another configuration \\(SHA-256\\), "[0-9a-f]{64}" not "[0-9a-f]{64}" \\(--timeout 5000 given to this shard only\\)\\n$`))]);
  });

  it('a shard that read the accounts file after it was edited (the same path, other accounts)', async () => {
    const m = await merge('a1', 'a2-accounts');
    expect([m.code, m.stderr]).toEqual([2, expect.stringMatching(new RegExp(`^report: cannot merge: ${dir('a2-accounts')} is not a shard of the run ${dir('a1')} belongs to: another accounts file \\(SHA-256\\), "[0-9a-f]{64}" not "[0-9a-f]{64}"\\n$`))]);
  });

  it('shards of two CI runs (GITHUB_RUN_ID 111 and 222)', async () => {
    const m = await merge('g1', 'g2');
    expect([m.code, m.stderr]).toEqual([2, `report: cannot merge: ${dir('g2')} is not a shard of the run ${dir('g1')} belongs to: another run id, "GITHUB_RUN_ID=222" not "GITHUB_RUN_ID=111"\n`]);
  });
});

describe('a shard\'s files are hashed in its manifest: an edited file is refused, named (exit 2)', () => {
  for (const [file, edit] of [
    ['summary.json', (t: string) => t.replace('"verdict": "non-conformant"', '"verdict": "conformant"').replace(/"failed": [1-9]\d*/g, '"failed": 0')],
    ['exchanges.json', (t: string) => t.replace(/dashed|"status":\s*\d+/, (m) => `${m} `)],
  ] as const) {
    it(`${file} edited after the run`, async () => {
      const edited = dir(`b2-edited-${file}`);
      cpSync(dir('b2'), edited, { recursive: true });
      const before = readFileSync(join(edited, file), 'utf8');
      const after = edit(before);
      expect(after).not.toBe(before);
      writeFileSync(join(edited, file), after);
      const m = await merge('a1', `b2-edited-${file}`);
      expect([m.code, m.stderr]).toEqual([2, `report: ${join(edited, file)} was changed after its run wrote it (its SHA-256 is not the one manifest.json gives)\n`]);
    });
  }

  it('a shard without manifest.json', async () => {
    const bare = dir('a2-bare');
    cpSync(dir('a2'), bare, { recursive: true });
    rmSync(join(bare, 'manifest.json'));
    const m = await merge('a1', 'a2-bare');
    expect([m.code, m.stderr]).toEqual([2, `report: ${bare} holds no manifest.json (written by every run of this harness): its files cannot be verified\n`]);
  });
});
