// junit.xml agrees with the exit code when the run could not judge (exit 2): an INCOMPLETE run or one
// that observed nothing of the interface has no failed check (its checks are skipped), so without an
// error a JUnit view (a CI test tab) showed it passed. Such a run carries one <error>; a run that
// judged carries none.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.js';

const work = mkdtempSync(join(tmpdir(), 'junit-exit-2-'));
const JUNIT = ['--reports', 'summary,junit', '--quiet'];

/** The <testsuites> counts, and the <error> elements' messages. */
function junitOf(dir: string): { failures: number; errors: number; errorMessages: string[] } {
  const xml = readFileSync(join(dir, 'junit.xml'), 'utf8');
  const top = /<testsuites [^>]*failures="(\d+)" errors="(\d+)"/.exec(xml)!;
  return { failures: Number(top[1]), errors: Number(top[2]), errorMessages: [...xml.matchAll(/<error message="([^"]*)"/g)].map((m) => m[1]!) };
}

describe.concurrent('junit.xml of a run that exits 2', { timeout: 300_000 }, () => {
  it('nothing of the interface observed (--har of no entry): one error naming the verdict', async () => {
    const har = join(work, 'empty.har');
    writeFileSync(har, JSON.stringify({ log: { version: '1.2', entries: [] } }));
    const dir = mkdtempSync(join(work, 'har-'));
    const run = await runCli([...JUNIT, '--report-dir', dir, '--har', har]);
    expect(run.code, run.stderr).toBe(2);
    expect(junitOf(dir)).toEqual({ failures: 0, errors: 1, errorMessages: ['NOTHING OF THIS INTERFACE OBSERVED (exit 2)'] });
  });

  it('incomplete (--max-requests 5): one error naming the verdict', async () => {
    const dir = mkdtempSync(join(work, 'incomplete-'));
    const run = await runCli([...JUNIT, '--report-dir', dir, '--max-requests', '5']);
    expect(run.code, run.stderr).toBe(2);
    expect(junitOf(dir)).toEqual({ failures: 0, errors: 1, errorMessages: ['INCOMPLETE (exit 2)'] });
  });

  it('a conformant run (exit 0): no error, no failure', async () => {
    const dir = mkdtempSync(join(work, 'conformant-'));
    const run = await runCli([...JUNIT, '--report-dir', dir]);
    expect(run.code, run.stderr).toBe(0);
    expect(junitOf(dir)).toEqual({ failures: 0, errors: 0, errorMessages: [] });
  });
});
