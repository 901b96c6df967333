// The SHA-256 of a file as the manifest and the run's identity take it (identity.ts fileSha256): a
// small file read at once and a large one streamed give the file's digest, and a name that is no
// regular file (a FIFO planted in a report directory) is refused at once, never waited on.
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { platform, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fileSha256 } from '../lib/cli/identity.js';

const dir = mkdtempSync(join(tmpdir(), 'file-digest-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('fileSha256', () => {
  it.each([['empty', 0], ['one byte', 1], ['64 KiB and one', 64 * 1024 + 1], ['1 MiB, read at once', 1024 * 1024], ['1 MiB and one, streamed', 1024 * 1024 + 1], ['3 MiB, streamed', 3 * 1024 * 1024]])('gives the digest of a file of %s', async (name, size) => {
    const bytes = Buffer.alloc(size);
    for (let i = 0; i < size; i++) bytes[i] = (i * 131 + 7) & 0xff;
    const path = join(dir, name.replace(/\W+/g, '-'));
    writeFileSync(path, bytes);
    expect(await fileSha256(path)).toBe(sha256(bytes));
  });

  it('refuses a directory, and a FIFO without opening it for a writer to come', async (ctx) => {
    await expect(fileSha256(dir)).rejects.toThrow(`${dir} is not a regular file`);
    if (platform() === 'win32') { ctx.annotate('no FIFOs here'); return; }
    const fifo = join(dir, 'summary.json');
    execFileSync('mkfifo', [fifo]);
    // A writer that comes after 3 s and says whether a reader held the FIFO open: an open that waits
    // for a writer (the fault) is still waiting then and lets it in; the fix opened and closed long before.
    const writer = spawn(process.execPath, ['-e', `setTimeout(() => { try { require('fs').openSync(${JSON.stringify(fifo)}, require('fs').constants.O_WRONLY | require('fs').constants.O_NONBLOCK); process.exit(0); } catch { process.exit(3); } }, 3000)`]);
    const came = new Promise<number | null>((resolve) => writer.on('exit', resolve));
    await expect(fileSha256(fifo)).rejects.toThrow(`${fifo} is not a regular file`);
    expect(await came).toBe(3); // ENXIO: no reader was waiting
  }, 60_000);
});
