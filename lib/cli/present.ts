// The presentation child (`bin/run.mjs cli/present REPORT.json DIR`): turns a finished, redacted
// report into allure-results/ through vitest, and prints what it wrote as JSON. Run by
// the CLI in a process of its own (vitest-run.ts); one line on stderr and exit 1 on failure.
// With `--ahead` it is started before the report exists: it makes its vitest, then reads
// {"input", "dir", "suites", "environment"} from stdin (presentation.ts PresentationInput; nothing
// there: it ends).
import { readFileSync } from 'node:fs';
import { text } from 'node:stream/consumers';
import type { Report } from '../reporting/report.js';
import { prepareVitest, presentInProcess, type PresentationInput } from './presentation.js';
import { errorLine } from './error-line.js';

/** Vite 8 transforms through rolldown, whose allocator (mimalloc) commits each 1 GiB arena it
 *  reserves up front by default: its pages count in the child's resident memory once touched and
 *  stay. Committed as used instead (read when rolldown loads, so set before vitest is imported):
 *  the child's peak on the reference's run 140 -> 126 MB compiled, 441-473 -> 321-350 MB from source. */
process.env.MIMALLOC_ARENA_EAGER_COMMIT ??= '0';

async function main(): Promise<number> {
  let [input, dir] = process.argv.slice(2);
  let prepared: ReturnType<typeof prepareVitest> | undefined;
  let given: Pick<PresentationInput, 'suites' | 'environment'> | undefined;
  if (input === '--ahead') {
    prepared = prepareVitest();
    const line = await text(process.stdin);
    if (!line) { await (await prepared)?.vitest.close(); return 0; }
    const parsed = JSON.parse(line) as PresentationInput;
    ({ input, dir } = parsed);
    if (Array.isArray(parsed.suites) && parsed.environment) given = parsed;
  }
  if (!input || !dir) { process.stderr.write('present: usage: cli/present REPORT.json DIR\n'); return 2; }
  const report = JSON.parse(readFileSync(input, 'utf8')) as Report;
  // Run by hand (or told only where), it works out itself what the CLI tells it.
  given ??= (await import('./vitest-run.js')).presentationInputs(report);
  process.stdout.write(`${JSON.stringify(await presentInProcess(report, dir, given, prepared))}\n`);
  return 0;
}

main()
  .catch((e: unknown) => { errorLine(`present: ${(e as Error).message.split('\n')[0]}`); return 1; })
  .then((code) => { process.exitCode = code; });
