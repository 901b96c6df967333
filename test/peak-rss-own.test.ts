// A run's peak memory in its reports is its own. getrusage's maxRSS, which it read, is carried across
// exec from the process that forked it: a run started by a parent holding 512 MiB said it peaked at
// 512 MiB or more, and the presentation child it starts said the run's own peak (lib/peak-rss.ts).
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.js';
import { useReference } from './helpers/reference.js';

const reference = useReference();
const MIB = 1024 * 1024;

describe.runIf(process.platform === 'linux')('peak memory in the reports', () => {
  it('a run started by a parent holding 512 MiB reports its own peak (under 400 MB), not the parent\'s', { timeout: 120_000 }, async () => {
    // Written through, so that its pages are resident in this process when the run is forked.
    const held = Buffer.alloc(512 * MIB, 1);
    const dir = mkdtempSync(join(tmpdir(), 'peak-rss-own-'));
    const r = await runCli(['--base-url', reference.url, '--reports', 'summary,allure', '--report-dir', dir, '--quiet']);
    expect(r.code, r.stderr).toBe(0);
    const { peakRss } = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as { peakRss: { checkingBytes: number; runBytes: number; presentationBytes?: number } };
    for (const bytes of [peakRss.checkingBytes, peakRss.runBytes, peakRss.presentationBytes]) {
      expect(bytes).toBeGreaterThan(20 * MIB);
      expect(bytes).toBeLessThan(400 * MIB);
    }
    expect(held[held.length - 1]).toBe(1);
  });
});
