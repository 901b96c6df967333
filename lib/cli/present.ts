// The presentation child (`bin/run.mjs cli/present REPORT.json DIR`): turns a finished, redacted
// report into allure-results/ through vitest, and prints what it wrote as JSON. Run by
// the CLI in a process of its own (vitest-run.ts); one line on stderr and exit 1 on failure.
import { readFileSync } from 'node:fs';
import type { Report } from '../reporting/report.js';
import { presentInProcess } from './vitest-run.js';

async function main(): Promise<number> {
  const [input, dir] = process.argv.slice(2);
  if (!input || !dir) { process.stderr.write('present: usage: cli/present REPORT.json DIR\n'); return 2; }
  const report = JSON.parse(readFileSync(input, 'utf8')) as Report;
  process.stdout.write(`${JSON.stringify(await presentInProcess(report, dir))}\n`);
  return 0;
}

main()
  .catch((e: unknown) => { process.stderr.write(`present: ${(e as Error).message.split('\n')[0]}\n`); return 1; })
  .then((code) => { process.exitCode = code; });
