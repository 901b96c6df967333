// A run that sends (the probes, accounts) stopped by SIGTERM or SIGINT (a CI job cancelled or timed
// out), or by the end of the shell that started it (`npm run` cancelled: npm passes no signal on),
// ends as the other exits 2 do: nothing more is sent, the requests in flight finish, the reports are
// written saying INCOMPLETE, and the exit code is 2. Killed by the signal instead, it wrote no report
// (a report directory kept an earlier run's, with that run's verdict) and exited 143 or 130; its
// shell killed, it went on sending, orphaned.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReference, type RunningReference } from '../lib/reference/server.js';
import { causeOf, heldFront, holding, spawnRun, stopTitle, type SpawnedRun } from './helpers/held-front.js';
import { expectOneVerdict } from './helpers/verdict-words.js';

/** The answers: a plain reference, behind a front that counts the requests and can hold one. */
let plain: RunningReference;
beforeAll(async () => { plain = await startReference({}); });
afterAll(async () => { await plain.close(); });

describe('a sending run stopped by a signal or its parent\'s end', { timeout: 120_000 }, () => {
  for (const how of ['SIGTERM', 'SIGINT', 'parent'] as const) {
    const cause = causeOf(how);
    it.skipIf(how === 'parent' && process.platform !== 'linux')(`${stopTitle(how)} while an account is asked: nothing more sent, INCOMPLETE in every output, exit 2`, async () => {
      // The first account's request (the 21st: the 20 probes come first, one at a time) is held
      // until the run says it is stopping.
      const held = holding();
      const target = await heldFront(plain.url, (n) => (n === 21 ? held.hold() : undefined));
      let run: SpawnedRun | undefined;
      try {
        const dir = mkdtempSync(join(tmpdir(), 'batch-stop-'));
        const accounts = join(dir, 'accounts.jsonl');
        writeFileSync(accounts, Array.from({ length: 50 }, (_, i) => JSON.stringify({ SupportStateUserLoginRequest: { userName: `user${i}`, searchValues: `s${i}` } })).join('\n'));
        run = spawnRun(['--base-url', target.url, '--accounts', accounts, '--concurrency', '1',
          '--report-dir', dir, '--reports', 'summary,traceability,junit'], how);
        await held.held;
        run.stop();
        await run.stopping;
        held.release();
        const code = await run.exit;
        const [stdout, stderr] = [run.stdout(), run.stderr()];
        expect(stderr).toBe(`conformance: stopping (${cause}): nothing more is sent; the reports follow the requests in flight\n`
          + `conformance: run incomplete: stopped (${cause}) before every request was sent\n`);
        expectOneVerdict(dir, stdout, code, 'INCOMPLETE', false);
        // The 20 probes and the held account: nothing was sent after the stop.
        expect(target.received()).toBe(21);
        const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as { stopped?: string; warnings: string[] };
        expect(summary.stopped).toBe(cause);
        expect(summary.warnings).toContain(`stopped (${cause}) before every request was sent: the run is incomplete`);
      } finally {
        run?.kill();
        await target.close();
      }
    });
  }
});
