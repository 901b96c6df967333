// A headless Chromium for browser tests, on any machine: Debian's /usr/bin/chromium when it is
// installed, else the build shipped inside the @sparticuz/chromium npm package (unpacked to the
// temp directory on first use), so `npm ci && npm test` needs no system package.
import { existsSync } from 'node:fs';
import { chromium, type Browser, type LaunchOptions } from 'playwright-core';

const SYSTEM_CHROMIUM = '/usr/bin/chromium';

/** Flags both builds run with here: no sandbox (root in a container), and no background traffic,
 *  which this machine's closed network refuses. */
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run', '--no-zygote'];

/** Which Chromium the tests use and where it is. */
export async function chromiumExecutable(): Promise<{ readonly path: string; readonly source: string }> {
  if (existsSync(SYSTEM_CHROMIUM)) return { path: SYSTEM_CHROMIUM, source: 'Debian package' };
  const { default: packaged } = await import('@sparticuz/chromium');
  return { path: await packaged.executablePath(), source: '@sparticuz/chromium (npm)' };
}

export async function launchChromium(options: LaunchOptions = {}): Promise<Browser> {
  const { path } = await chromiumExecutable();
  return chromium.launch({ ...options, executablePath: path, args: [...FLAGS, ...(options.args ?? [])] });
}
