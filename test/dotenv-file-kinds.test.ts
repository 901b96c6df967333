// A .env or a --ca file that is not a regular file, or larger than a settings file is, is refused in
// one line naming it, exit 2, nothing read: a FIFO at .env held the run for ever (a secret manager
// may mount one there), .env linked to /dev/zero grew it by gigabytes, a directory gave an internal
// error naming no file.
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { platform, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_SMALL_FILE } from '../lib/cli/config.js';
import { childEnv, ROOT } from './helpers/cli.js';

const work = mkdtempSync(join(tmpdir(), 'dotenv-file-kinds-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** `--help` (or `args`) run in `dir`, where .env is read from; killed after 60 s (a hang). */
const runIn = (dir: string, args: readonly string[] = ['--help']) => new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
  execFile(process.execPath, [join(ROOT, 'bin/run.mjs'), 'cli/main', ...args], { cwd: dir, env: childEnv(), timeout: 60_000 }, (error, stdout, stderr) => {
    resolve({ code: error ? (error.killed ? -1 : Number(error.code)) : 0, stdout, stderr });
  });
});

describe('.env and --ca that are no settings file', () => {
  it('refuses a FIFO, /dev/zero, a directory and a file past the bound at .env, each in one line naming it, exit 2', async (ctx) => {
    if (platform() === 'win32') { ctx.annotate('no FIFO or /dev/zero'); return; }
    const made = (name: string, make: (path: string) => void) => { const dir = join(work, name); mkdirSync(dir); make(join(dir, '.env')); return dir; };
    const dirs = {
      fifo: made('fifo', (p) => execFileSync('mkfifo', [p])),
      zero: made('zero', (p) => symlinkSync('/dev/zero', p)),
      directory: made('directory', (p) => mkdirSync(p)),
      large: made('large', (p) => writeFileSync(p, `# ${'x'.repeat(MAX_SMALL_FILE)}\n`)),
    };
    const got = await Promise.all(Object.values(dirs).map((dir) => runIn(dir)));
    expect(got.map((r) => [r.code, r.stdout, r.stderr])).toEqual([
      [2, '', 'conformance: .env is not a regular file\n'],
      [2, '', 'conformance: .env is not a regular file\n'],
      [2, '', 'conformance: .env is not a regular file\n'],
      [2, '', `conformance: .env is ${MAX_SMALL_FILE + 3} bytes, past the ${MAX_SMALL_FILE} a .env file may hold: not read\n`],
    ]);
  }, 120_000);

  it('refuses a FIFO given as --ca in one line naming it, exit 2', async (ctx) => {
    if (platform() === 'win32') { ctx.annotate('no FIFO'); return; }
    const dir = join(work, 'ca');
    mkdirSync(dir);
    execFileSync('mkfifo', [join(dir, 'ca.pem')]);
    const r = await runIn(dir, ['--ca', 'ca.pem', '--base-url', 'https://127.0.0.1:9']);
    expect([r.code, r.stdout, r.stderr]).toEqual([2, '', 'conformance: cannot read --ca ca.pem: not a regular file\n']);
  }, 60_000);
});
