// A run that sends (the probes, accounts) stopped by SIGTERM or SIGINT (a CI job cancelled or timed
// out) ends as the other exits 2 do: nothing more is sent, the requests in flight finish, the reports
// are written saying INCOMPLETE, and the exit code is 2. Killed by the signal instead, it wrote no
// report (a report directory kept an earlier run's, with that run's verdict) and exited 143 or 130.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReference, type RunningReference } from '../lib/reference/server.js';
import { heldFront, holding, spawnRun } from './helpers/held-front.js';
import { expectOneVerdict } from './helpers/verdict-words.js';

/** The answers: a plain reference, behind a front that counts the requests and can hold one. */
let plain: RunningReference;
beforeAll(async () => { plain = await startReference({}); });
afterAll(async () => { await plain.close(); });

describe('a sending run stopped by a signal', { timeout: 120_000 }, () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`${signal} while an account is asked: nothing more sent, INCOMPLETE in every output, exit 2`, async () => {
      // The first account's request (the 21st: the 20 probes come first, one at a time) is held
      // until the run says it is stopping.
      const held = holding();
      const target = await heldFront(plain.url, (n) => (n === 21 ? held.hold() : undefined));
      try {
        const dir = mkdtempSync(join(tmpdir(), 'batch-stop-'));
        const accounts = join(dir, 'accounts.jsonl');
        writeFileSync(accounts, Array.from({ length: 50 }, (_, i) => JSON.stringify({ SupportStateUserLoginRequest: { userName: `user${i}`, searchValues: `s${i}` } })).join('\n'));
        const run = spawnRun(['--base-url', target.url, '--accounts', accounts, '--concurrency', '1',
          '--report-dir', dir, '--reports', 'summary,traceability,junit']);
        await held.held;
        run.child.kill(signal);
        await run.stopping;
        held.release();
        const code = await run.exit;
        const [stdout, stderr] = [run.stdout(), run.stderr()];
        expect(stderr).toBe(`conformance: stopping (${signal}): nothing more is sent; the reports follow the requests in flight\n`
          + `conformance: run incomplete: stopped (${signal}) before every request was sent\n`);
        expectOneVerdict(dir, stdout, code, 'INCOMPLETE', false);
        // The 20 probes and the held account: nothing was sent after the signal.
        expect(target.received()).toBe(21);
        const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as { stopped?: string; warnings: string[] };
        expect(summary.stopped).toBe(signal);
        expect(summary.warnings).toContain(`stopped (${signal}) before every request was sent: the run is incomplete`);
      } finally {
        await target.close();
      }
    });
  }
});
