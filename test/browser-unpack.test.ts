// The browser tests' packaged Chromium (test/helpers/browser.ts) is unpacked once per temporary
// directory, by the first test process to ask: two unpacking at once had one spawn the binary while
// the other still wrote it (spawn ETXTBSY: two full runs of the suite failed so in one day). One
// asking while another holds the lock waits for that one's mark and takes the binary it names.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './helpers/cli.js';

const SYSTEM = existsSync('/usr/bin/chromium');
const ASK = `import { chromiumExecutable } from './test/helpers/browser.ts';\nconsole.log((await chromiumExecutable()).path);\n`;

describe('the browser tests\' packaged Chromium', () => {
  it.skipIf(SYSTEM)(SYSTEM
    ? 'SKIPPED: Debian\'s /usr/bin/chromium is here: nothing is unpacked'
    : 'a process asking for it while another unpacks it (the lock held) waits, and takes the binary the other\'s mark names, unpacking nothing itself', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chromium-unpack-'));
    try {
      mkdirSync(join(dir, 'chromium.unpacking'));
      const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', ASK], { cwd: ROOT, env: { ...process.env, TMPDIR: dir } });
      let out = '';
      child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
      child.stderr.on('data', (d: Buffer) => { out += d.toString(); });
      const closed = new Promise((r) => child.on('close', r));
      // The other process finishes: its mark first, then the lock let go.
      writeFileSync(join(dir, 'chromium.unpacked'), '/unpacked/by/the/other/chromium');
      rmSync(join(dir, 'chromium.unpacking'), { recursive: true });
      await closed;
      expect(out.trim()).toBe('/unpacked/by/the/other/chromium');
      expect(existsSync(join(dir, 'chromium'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
