// A differential run (--legacy-url) stopped by SIGTERM or SIGINT, or by the end of the shell that
// started it (`npm run` cancelled), ends as a stopped sending run does:
// no request more is begun, the one in flight is sent to all three (legacy, candidate, legacy again),
// the reports say INCOMPLETE and how many were compared, exit 2; a second signal exits at once.
// Killed by the signal instead, it wrote no report and exited 143 or 130.
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReference, type RunningReference } from '../lib/reference/server.js';
import { runCli } from './helpers/cli.js';
import { causeOf, heldFront, holding, spawnRun, stopTitle, type Stop } from './helpers/held-front.js';
import { expectOneVerdict } from './helpers/verdict-words.js';

/** Both deployments: the same plain reference, the legacy's requests through a front that can hold one. */
let plain: RunningReference;
beforeAll(async () => { plain = await startReference({}); });
afterAll(async () => { await plain.close(); });

/** A differential run of the probes, one at a time, its legacy's third request (the second probe's
 *  first) held. */
async function heldRun(how: Stop = 'SIGTERM', dir = mkdtempSync(join(tmpdir(), 'legacy-stop-'))) {
  const held = holding();
  const legacy = await heldFront(plain.url, (n) => (n === 3 ? held.hold() : undefined));
  const run = spawnRun(['--legacy-url', legacy.url, '--base-url', plain.url, '--concurrency', '1', '--report-dir', dir, '--reports', 'summary,traceability,junit'], how);
  await held.held;
  return { held, legacy, dir, run };
}

describe('a differential run stopped by a signal or its parent\'s end', { timeout: 120_000 }, () => {
  for (const how of ['SIGTERM', 'SIGINT', 'parent'] as const) {
    const cause = causeOf(how);
    it.skipIf(how === 'parent' && process.platform !== 'linux')(`${stopTitle(how)} while the legacy is asked: the request in flight sent whole, nothing more, INCOMPLETE, exit 2`, async () => {
      const { held, legacy, dir, run } = await heldRun(how);
      try {
        run.stop();
        await run.stopping;
        held.release();
        const code = await run.exit;
        expect(run.stderr()).toBe(`conformance: stopping (${cause}): nothing more is sent; the reports follow the requests in flight\n`
          + `conformance: run incomplete: stopped (${cause}) before every request was sent\n`);
        expectOneVerdict(dir, run.stdout(), code, 'INCOMPLETE', false);
        // Two probes, each sent to the legacy twice: nothing was begun after the signal.
        expect(legacy.received()).toBe(4);
        const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as { stopped?: string; warnings: string[] };
        expect(summary.stopped).toBe(cause);
        expect(summary.warnings).toContain(`stopped (${cause}) before every request was sent, after 2 request(s) were sent to both: the run is incomplete`);
      } finally {
        run.kill();
        held.release();
        await legacy.close();
      }
    });
  }

  it('a second SIGTERM while the first waits on the legacy: exit 2 at once, no report written, and none of an earlier run left stating CONFORMANT', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'legacy-stop-'));
    const earlier = await runCli(['--base-url', plain.url, '--report-dir', dir, '--reports', 'summary,traceability,junit', '--quiet']);
    expect([earlier.code, readdirSync(dir).sort()]).toEqual([0, ['exchanges.json', 'interface.md', 'junit.xml', 'manifest.json', 'replay.sh', 'summary.json', 'traceability.md']]);
    const { held, legacy, run } = await heldRun('SIGTERM', dir);
    try {
      run.child.kill('SIGTERM');
      await run.stopping;
      run.child.kill('SIGTERM');
      expect(await run.exit).toBe(2);
      expect(run.stderr()).toBe('conformance: stopping (SIGTERM): nothing more is sent; the reports follow the requests in flight\n'
        + 'conformance: stopped at once (SIGTERM, a second stop); no reports written\n');
      expect(readdirSync(dir)).toEqual([]);
      expect(run.stdout()).toContain('Removed from the report directory (they would state another verdict than exit 2): exchanges.json, interface.md, junit.xml, manifest.json, replay.sh, summary.json, traceability.md\n');
    } finally {
      held.release();
      await legacy.close();
    }
  });
});
