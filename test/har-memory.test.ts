// A recording larger than the memory bound is judged as a stream: peak memory stays under 300 MB
// whatever the file's size. 384 MiB here, most of it the static assets a page loads beside the
// service's calls (256 KiB each, not this interface, so judging them is cheap) and some 4 000 calls
// judged whole: the file is larger than the bound, and the test costs seconds of CPU, not minutes.
// With the calls alone the run held the same (`npm run bench` measures a 1 GiB file of calls). The
// URLs of those assets, each a view of a chunk of the file, once held 50 such chunks (over 300 MB at
// this size). Memory is asserted, never time.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generatedHar } from '../bench/generated-har.js';
import { runCli } from './helpers/cli.js';

const BOUND_MB = 300;

describe('--har on a recording larger than the memory bound', () => {
  it('judges every entry of a 384 MiB recording (calls and assets) with peak RSS under 300 MB', async () => {
    const har = await generatedHar(384, { callsMib: 24 });
    try {
      const dir = mkdtempSync(join(tmpdir(), 'har-memory-'));
      // The presentation child's peak is asserted; the Allure HTML, another process, is not measured.
      const r = await runCli(['--har', har.path, '--report-dir', dir, '--quiet', '--reports', 'summary,allure']);
      expect([r.code, r.stderr]).toEqual([0, '']);
      const s = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as {
        counts: { exchanges: { exchanges: number; notInterfaceTotal: number } }; peakRss: { runBytes: number; presentationBytes: number };
      };
      expect(har.bytes / 1e6).toBeGreaterThan(BOUND_MB);
      expect(s.counts.exchanges.exchanges).toBe(har.entries);
      expect(s.counts.exchanges.notInterfaceTotal).toBe(har.entries - har.calls);
      expect(har.calls).toBeGreaterThan(4000);
      expect(s.peakRss.runBytes / 1e6).toBeLessThan(BOUND_MB);
      expect(s.peakRss.presentationBytes / 1e6).toBeLessThan(BOUND_MB);
    } finally {
      rmSync(dirname(har.path), { recursive: true, force: true });
    }
  });
});
