// A large recording is judged as a stream: peak memory stays under 300 MB whatever the file's size.
// 256 MiB here keeps npm test within minutes; `npm run bench` measures a 1 GiB file the same way
// (README, Speed). Memory is asserted, never time.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generatedHar } from '../bench/generated-har.js';
import { runCli } from './helpers/cli.js';

describe('--har on a recording larger than the memory bound', () => {
  it('is judged whole with peak RSS under 300 MB', async () => {
    const har = await generatedHar(256);
    try {
      const dir = mkdtempSync(join(tmpdir(), 'har-memory-'));
      // The presentation child's peak is asserted; the Allure HTML, another process, is not measured.
      const r = await runCli(['--har', har.path, '--report-dir', dir, '--quiet', '--reports', 'summary,allure']);
      expect([r.code, r.stderr]).toEqual([0, '']);
      const s = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as { counts: { exchanges: { exchanges: number } }; peakRss: { runBytes: number; presentationBytes: number } };
      expect(s.counts.exchanges.exchanges).toBe(har.entries);
      expect(har.bytes).toBeGreaterThan(256 * 1024 * 1024);
      expect(s.peakRss.runBytes / 1e6).toBeLessThan(300);
      expect(s.peakRss.presentationBytes / 1e6).toBeLessThan(300);
    } finally {
      rmSync(dirname(har.path), { recursive: true, force: true });
    }
  });
});
