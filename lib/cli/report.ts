// `npm run report -- [--report-dir DIR]`: rebuilds report.html and traceability.md from a report
// directory's allure-results/ and summary.json (for instance after copying them off a CI runner).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { writeHtmlReport } from '../reporting/html.js';
import { reportTitle, type Report } from '../reporting/report.js';
import { traceabilityMarkdown } from '../reporting/traceability.js';

async function main(): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ options: { 'report-dir': { type: 'string' } }, strict: true, allowPositionals: false }));
  } catch (e) {
    process.stderr.write(`report: ${(e as Error).message.split('\n')[0]}\nusage: npm run report -- [--report-dir DIR]\n`);
    return 2;
  }
  const dir = resolve(values['report-dir'] ?? process.env.REPORT_DIR ?? 'reports');
  const summaryPath = join(dir, 'summary.json');
  if (!existsSync(summaryPath) || !existsSync(join(dir, 'allure-results'))) {
    process.stderr.write(`report: ${dir} holds no summary.json and allure-results/ (run npm run conformance first)\n`);
    return 2;
  }
  const summary = JSON.parse(readFileSync(summaryPath, 'utf8')) as Report;
  writeFileSync(join(dir, 'traceability.md'), traceabilityMarkdown(summary));
  process.stdout.write(`${await writeHtmlReport(dir, reportTitle(summary))}\n${join(dir, 'traceability.md')}\n`);
  return 0;
}

main()
  .catch((e: unknown) => { process.stderr.write(`report: ${(e as Error).message.split('\n')[0]}\n`); return 2; })
  .then((code) => { process.exitCode = code; });
