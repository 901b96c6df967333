// A differential run (--legacy-url) stopped by SIGTERM or SIGINT ends as a stopped sending run does:
// no request more is begun, the one in flight is sent to all three (legacy, candidate, legacy again),
// the reports say INCOMPLETE and how many were compared, exit 2; a second signal exits at once.
// Killed by the signal instead, it wrote no report and exited 143 or 130.
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReference, type RunningReference } from '../lib/reference/server.js';
import { heldFront, holding, spawnRun } from './helpers/held-front.js';
import { expectOneVerdict } from './helpers/verdict-words.js';

/** Both deployments: the same plain reference, the legacy's requests through a front that can hold one. */
let plain: RunningReference;
beforeAll(async () => { plain = await startReference({}); });
afterAll(async () => { await plain.close(); });

/** A differential run of the probes, one at a time, its legacy's third request (the second probe's
 *  first) held. */
async function heldRun() {
  const held = holding();
  const legacy = await heldFront(plain.url, (n) => (n === 3 ? held.hold() : undefined));
  const dir = mkdtempSync(join(tmpdir(), 'legacy-stop-'));
  const run = spawnRun(['--legacy-url', legacy.url, '--base-url', plain.url, '--concurrency', '1', '--report-dir', dir, '--reports', 'summary,traceability,junit']);
  await held.held;
  return { held, legacy, dir, run };
}

describe('a differential run stopped by a signal', { timeout: 120_000 }, () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`${signal} while the legacy is asked: the request in flight sent whole, nothing more, INCOMPLETE, exit 2`, async () => {
      const { held, legacy, dir, run } = await heldRun();
      try {
        run.child.kill(signal);
        await run.stopping;
        held.release();
        const code = await run.exit;
        expect(run.stderr()).toBe(`conformance: stopping (${signal}): nothing more is sent; the reports follow the requests in flight\n`
          + `conformance: run incomplete: stopped (${signal}) before every request was sent\n`);
        expectOneVerdict(dir, run.stdout(), code, 'INCOMPLETE', false);
        // Two probes, each sent to the legacy twice: nothing was begun after the signal.
        expect(legacy.received()).toBe(4);
        const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as { stopped?: string; warnings: string[] };
        expect(summary.stopped).toBe(signal);
        expect(summary.warnings).toContain(`stopped (${signal}) before every request was sent, after 2 request(s) were sent to both: the run is incomplete`);
      } finally {
        held.release();
        await legacy.close();
      }
    });
  }

  it('a second SIGTERM while the first waits on the legacy: exit 2 at once, no report written', async () => {
    const { held, legacy, dir, run } = await heldRun();
    try {
      run.child.kill('SIGTERM');
      await run.stopping;
      run.child.kill('SIGTERM');
      expect(await run.exit).toBe(2);
      expect(run.stderr()).toBe('conformance: stopping (SIGTERM): nothing more is sent; the reports follow the requests in flight\n'
        + 'conformance: stopped at once (SIGTERM, a second stop); no reports written\n');
      expect(existsSync(join(dir, 'summary.json'))).toBe(false);
    } finally {
      held.release();
      await legacy.close();
    }
  });
});
