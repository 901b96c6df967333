// Judging a recording stopped by SIGTERM or SIGINT (a CI job cancelled, a producer piping a HAR that
// never ends), or by the end of the shell that started it (`npm run` cancelled), ends as a stopped
// sending run does: nothing more is read, what was read is judged, the reports say INCOMPLETE and how
// far the reading got, exit 2. Killed by the signal instead, it wrote no report and exited 143 or
// 130; its shell killed, it went on reading, orphaned.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { generatedHar } from '../bench/generated-har.js';
import { causeOf, spawnRun, stopTitle } from './helpers/held-front.js';
import { expectOneVerdict } from './helpers/verdict-words.js';

/** A recording of the reference's real answers, less its closing brackets: a HAR still being written. */
let unfinished: string;
beforeAll(async () => {
  const har = readFileSync((await generatedHar(0.5)).path, 'utf8');
  unfinished = har.slice(0, har.length - ']}}'.length);
});

describe('judging a recording stopped by a signal or its parent\'s end', { timeout: 120_000 }, () => {
  for (const how of ['SIGTERM', 'SIGINT', 'parent'] as const) {
    const cause = causeOf(how);
    it.skipIf(how === 'parent' && process.platform !== 'linux')(`${stopTitle(how)} while standard input is read: nothing more read, what was read judged, INCOMPLETE, exit 2`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'recording-stop-'));
      const run = spawnRun(['--har', '-', '--report-dir', dir, '--reports', 'summary,traceability,junit'], how);
      // More than a pipe holds: 'drain' comes once the run has read all but the pipe's last 64 KiB.
      // Standard input stays open, so only the stop can end the run.
      try {
        expect(run.child.stdin.write(unfinished)).toBe(false);
        await new Promise<void>((resolve) => run.child.stdin.once('drain', resolve));
        run.stop();
        await run.stopping;
        const code = await run.exit;
        expect(run.stderr()).toBe(`conformance: stopping (${cause}): nothing more is read; the reports follow the entries read\n`
          + `conformance: run incomplete: stopped (${cause}) before the whole recording was read\n`);
        expectOneVerdict(dir, run.stdout(), code, 'INCOMPLETE', false);
        const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as { stopped?: string; warnings: string[]; counts: { exchanges: { bySource: Record<string, number> } } };
        expect(summary.stopped).toBe(cause);
        // How far it got: every exchange it took was judged, and it took some (most of what it was sent).
        const judged = summary.counts.exchanges.bySource.har ?? 0;
        expect(judged).toBeGreaterThan(0);
        expect(summary.warnings).toContain(`stopped (${cause}) while reading standard input, after ${judged} recorded exchange(s): the rest was not read and the run is incomplete`);
      } finally {
        run.child.stdin.destroy();
        run.kill();
      }
    });
  }
});
