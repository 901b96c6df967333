// A setting's problem says where the setting was made, and a .env key that misspells a setting
// stops the run: left unread, `BASEURL=https://staging…` had the run check the embedded reference,
// print CONFORMANT and exit 0. Keys of other programs sharing the .env are left alone.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { childEnv, ROOT } from './helpers/cli.js';

const work = mkdtempSync(join(tmpdir(), 'dotenv-settings-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The CLI run in a directory of its own holding `dotenv` as .env (.env is read from the working directory). */
function run(dotenv: string, args: readonly string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const dir = mkdtempSync(join(work, 'env-'));
  writeFileSync(join(dir, '.env'), dotenv);
  return new Promise((resolve) => {
    execFile(process.execPath, [join(ROOT, 'bin/run.mjs'), 'cli/main', ...args], { cwd: dir, env: { ...childEnv(), ...env } }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
    });
  });
}

describe('.env keys', () => {
  it('BASEURL stops the run naming the line and BASE_URL, exit 2, before anything is checked', async () => {
    expect(await run('# staging\nBASEURL=http://127.0.0.1:9\n', ['--report-dir', join(work, 'never')])).toEqual({
      code: 2, stdout: '',
      stderr: 'conformance: .env line 2: "BASEURL" is not a setting the harness reads; did you mean BASE_URL? (misspelt, it would be left unread and the run would go on with the default)\n',
    });
  });

  it.each([['base_url=x', 'BASE_URL'], ['BASE_UR=x', 'BASE_URL'], ['TIMEOUT=5000', 'TIMEOUT_MS'], ['LOGIN_USERNAME=jdoe', 'LOGIN_USER_NAME'], ['export Accounts_File=a.jsonl', 'ACCOUNTS_FILE']])('%s: did you mean %s, exit 2', async (line, meant) => {
    const r = await run(`${line}\n`, ['--version']);
    expect([r.code, r.stdout, /^conformance: \.env line 1: "[^"]+" is not a setting the harness reads; did you mean ([A-Z_]+)\?/.exec(r.stderr)?.[1]]).toEqual([2, '', meant]);
  });

  it('keys of other programs (DATABASE_URL, NODE_ENV, DATE, PORT, JOB, SPEED) are left alone', async () => {
    expect(await run('DATABASE_URL=postgres://x\nNODE_ENV=production\nDATE=1\nPORT=3000\nJOB=1\nSPEED=2\n', ['--version'])).toEqual({ code: 0, stdout: expect.stringMatching(/^\d+\.\d+\.\d+\n$/), stderr: '' });
  });
});

describe('where a bad setting was made', () => {
  it.each([
    ['.env, by its option\'s variable', 'ACCOUNTS_FILE=a.jsonl\nSHARD=9/2\n', [], {}, 'conformance: --shard must be I/N with 1 <= I <= N, not "9/2" (set by SHARD in .env line 2)\n'],
    ['the environment', '', [], { ACCOUNTS_FILE: 'a.jsonl', SHARD: '9/2' }, 'conformance: --shard must be I/N with 1 <= I <= N, not "9/2" (set by SHARD in the environment)\n'],
    ['.env, the environment winning', 'SHARD=1/2\n', ['--accounts', 'a.jsonl'], { SHARD: '9/2' }, 'conformance: --shard must be I/N with 1 <= I <= N, not "9/2" (set by SHARD in the environment)\n'],
    ['a flag (said as it is)', 'SHARD=1/2\n', ['--accounts', 'a.jsonl', '--shard', '9/2'], {}, 'conformance: --shard must be I/N with 1 <= I <= N, not "9/2"\n'],
    ['.env, a variable of no option', 'REPORT_DIR=r\nTIMEOUT_MS=abc\n', [], {}, 'conformance: TIMEOUT_MS must be an integer from 1 to 600000, not "abc" (set in .env line 2)\n'],
    // childEnv exports BASE_URL='': empty is unset, so .env's value stands (dotenv's own rule kept the empty one).
    ['.env under an empty BASE_URL, the base URL', 'BASE_URL=notaurl\n', [], { BASE_URL: '' }, 'conformance: --base-url: the base URL "notaurl" is not a URL (set by BASE_URL in .env line 1)\n'],
  ] as const)('set in %s: exit 2, said in one line', async (_where, dotenv, args, env, stderr) => {
    expect(await run(dotenv, args, env)).toEqual({ code: 2, stdout: '', stderr });
  });
});
