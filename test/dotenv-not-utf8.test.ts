// A .env (dotenv) whose bytes are not UTF-8 would be read with U+FFFD in their place, and the run
// would send a value nobody wrote: it stops any run in one line naming the file and line, exit 2.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { childEnv, ROOT } from './helpers/cli.js';

const work = mkdtempSync(join(tmpdir(), 'dotenv-not-utf8-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('.env', () => {
  it('a .env whose bytes are not UTF-8 stops any run in one line naming the file and line, exit 2', async () => {
    const dir = mkdtempSync(join(work, 'env-')); // run there: .env is read from the working directory
    writeFileSync(join(dir, '.env'), Buffer.concat([Buffer.from('# settings\nHEADER_X_TOKEN=ab'), Buffer.from([0xe9]), Buffer.from('c\n')]));
    const r = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, [join(ROOT, 'bin/run.mjs'), 'cli/main', '--help'], { cwd: dir, env: childEnv() }, (error, stdout, stderr) => {
        resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
      });
    });
    expect([r.code, r.stdout, r.stderr]).toEqual([2, '', 'conformance: .env line 2 is not UTF-8 (byte offset 28 of the file): its values would be read with U+FFFD in place of those bytes\n']);
  });
});
