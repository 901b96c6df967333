// Writes every output of a finished report into a report directory, and says how the run ends: the
// one place the CLI, `npm run report` (rebuild) and `npm run report -- --merge` share. Every output
// that can be written is written, and the verdict always reaches the console; an output that fails
// is named on stderr and the run exits 2.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { consoleSummary } from '../reporting/console.js';
import { writeHtmlReport } from '../reporting/html.js';
import { replaceFile } from '../reporting/replace-file.js';
import { reportTitle, summaryOf, type Report, type ReportedExchange } from '../reporting/report.js';
import { traceabilityMarkdown } from '../reporting/traceability.js';
import { presentWithVitest } from './vitest-run.js';

/** The kept exchanges' redacted texts: summary.json leaves them out; a rebuild or a merge needs them. */
export const EXCHANGES_FILE = 'exchanges.json';
const ORDER = ['report.html', 'traceability.md', 'summary.json', 'junit.xml', 'allure-results', EXCHANGES_FILE];

/** Never through what already stands at the path (a planted symlink): see replace-file.ts. */
const writeTo = replaceFile;

export interface Written {
  readonly report: Report;
  readonly outputs: readonly string[];
  readonly problems: readonly string[];
}

export async function writeReports(report: Report, dir: string): Promise<Written> {
  const outputs: string[] = [];
  const problems: string[] = [];
  const attempt = async (what: string, make: () => Promise<string[]> | string[]) => {
    try {
      outputs.push(...(await make()));
    } catch (e) {
      problems.push(`cannot write ${what}: ${(e as Error).message.split('\n')[0]}`);
    }
  };
  const t = performance.now();
  let presented = false;
  let presentationBytes: number | undefined;
  await attempt('the Allure results and junit.xml', async () => {
    const { allureResults, junit, peakRssBytes } = await presentWithVitest(report, dir);
    presented = true;
    presentationBytes = peakRssBytes;
    return [allureResults, junit];
  });
  const done: Report = {
    ...report,
    timings: { ...report.timings, presentingMs: Math.round(performance.now() - t) },
    peakRss: { ...report.peakRss, runBytes: Math.max(report.peakRss.runBytes ?? 0, process.resourceUsage().maxRSS * 1024), ...(presentationBytes ? { presentationBytes } : {}) },
  };
  await attempt('summary.json', () => [writeTo(join(dir, 'summary.json'), `${JSON.stringify(summaryOf(done), null, 2)}\n`)]);
  await attempt(EXCHANGES_FILE, () => [writeTo(join(dir, EXCHANGES_FILE), `${JSON.stringify(done.exchanges)}\n`)]);
  await attempt('traceability.md', () => [writeTo(join(dir, 'traceability.md'), traceabilityMarkdown(done))]);
  if (presented) await attempt('report.html', async () => [await writeHtmlReport(dir, reportTitle(done))]);
  const rank = (path: string) => ORDER.findIndex((name) => path.endsWith(name));
  return { report: done, outputs: outputs.sort((a, b) => rank(a) - rank(b)), problems };
}

/** A report directory's report, as written (summary.json with exchanges.json's texts put back). */
export function readReport(dir: string): Report {
  const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as Report & { exchanges: Omit<ReportedExchange, 'request' | 'response'>[] };
  let texts: ReportedExchange[] = [];
  try {
    texts = JSON.parse(readFileSync(join(dir, EXCHANGES_FILE), 'utf8')) as ReportedExchange[];
  } catch {
    texts = []; // an older directory: exchanges without their texts
  }
  const byId = new Map(texts.map((e) => [e.id, e]));
  return { ...summary, exchanges: summary.exchanges.map((e) => ({ ...e, request: byId.get(e.id)?.request ?? '', response: byId.get(e.id)?.response ?? '' })) };
}

/** Prints the console summary and problems; the exit code the verdict calls for. */
export function finish(written: Written, program: string): number {
  const { report, outputs, problems } = written;
  process.stdout.write(consoleSummary(report, outputs));
  if (problems.length) {
    for (const p of problems) process.stderr.write(`${program}: ${p}\n`);
    return 2;
  }
  if (report.verdict === 'unreachable') {
    process.stderr.write(`${program}: cannot reach ${report.target.baseUrl}: ${report.unreachable}\n`);
    return 2;
  }
  if (report.verdict === 'incomplete') {
    const skipped = report.checks.filter((c) => c.level === 'MUST' && c.status === 'skip');
    process.stderr.write(`${program}: run incomplete: ${skipped.length} MUST check(s) not evaluated (${skipped[0]!.id}: ${skipped[0]!.message})\n`);
    return 2;
  }
  if (report.verdict === 'nothing-observed') {
    const seen = Object.values(report.counts.exchanges.kinds).reduce((n, k) => n + k, 0);
    process.stderr.write(seen
      ? `${program}: nothing of this interface could be judged: its ${seen} exchange(s) gave no MUST check anything to judge (${report.counts.exchanges.notInterfaceTotal} exchange(s) of other services)\n`
      : `${program}: nothing of this interface was observed (${report.counts.exchanges.notInterfaceTotal} exchange(s) of other services)\n`);
    return 2;
  }
  if (report.verdict !== 'conformant') return 1;
  if (report.differential && report.differential.compared === 0 && report.differential.inconclusive) {
    process.stderr.write(`${program}: nothing was compared with the legacy: it answered every request two ways (${report.differential.inconclusive} request(s))\n`);
    return 2;
  }
  // A differential run (or the merge of its shards): a difference from the legacy fails it too.
  if (report.differential?.differences) {
    process.stderr.write(`${program}: the candidate differs from the legacy beyond noise (${report.differential.differences} differing value(s))\n`);
    return 1;
  }
  return 0;
}
