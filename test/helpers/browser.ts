// A headless Chromium for browser tests, on any machine: Debian's /usr/bin/chromium when it is
// installed, else the build shipped inside the @sparticuz/chromium npm package (unpacked to the
// temp directory on first use), so `npm ci && npm test` needs no system package.
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type LaunchOptions } from 'playwright-core';

const SYSTEM_CHROMIUM = '/usr/bin/chromium';

/** Flags both builds run with here: no sandbox (root in a container), and no background traffic,
 *  which this machine's closed network refuses. */
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run', '--no-zygote'];

/** Which Chromium the tests use and where it is. */
export async function chromiumExecutable(): Promise<{ readonly path: string; readonly source: string }> {
  if (existsSync(SYSTEM_CHROMIUM)) return { path: SYSTEM_CHROMIUM, source: 'Debian package' };
  return { path: await packagedChromium(), source: '@sparticuz/chromium (npm)' };
}

/** How long a test process waits for another to unpack the packaged build (a limit that only catches
 *  one that died unpacking: unpacking takes about 1.3 CPU-s). */
const UNPACK_WAIT_MS = 600_000;

/** The packaged build, unpacked once per temporary directory. The package unpacks it unless the
 *  binary is there, so two test processes at once had one spawn the binary while the other still
 *  wrote it (spawn ETXTBSY, twice in a day's full runs): the first to make the lock unpacks and
 *  leaves a mark naming the binary; the others wait for the mark. */
async function packagedChromium(): Promise<string> {
  const mark = join(tmpdir(), 'chromium.unpacked');
  const lock = join(tmpdir(), 'chromium.unpacking');
  for (const until = Date.now() + UNPACK_WAIT_MS; Date.now() < until; await new Promise((r) => setTimeout(r, 100))) {
    if (existsSync(mark)) return readFileSync(mark, 'utf8');
    try { mkdirSync(lock); } catch { continue; } // another process unpacks it
    try {
      const { default: packaged } = await import('@sparticuz/chromium');
      const path = await packaged.executablePath();
      writeFileSync(`${mark}.part`, path);
      renameSync(`${mark}.part`, mark);
      return path;
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
  throw new Error(`the packaged Chromium was not unpacked within ${UNPACK_WAIT_MS / 1000} s: the test process unpacking it (${lock}) ended first?`);
}

export async function launchChromium(options: LaunchOptions = {}): Promise<Browser> {
  const { path } = await chromiumExecutable();
  return chromium.launch({ ...options, executablePath: path, args: [...FLAGS, ...(options.args ?? [])] });
}
