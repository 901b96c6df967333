// Writes every output of a finished report into a report directory, and says how the run ends: the
// one place the CLI, `npm run report` (rebuild) and `npm run report -- --merge` share. Every output
// that can be written is written, and the verdict always reaches the console; an output that fails
// is named on stderr and the run exits 2.
import { appendFileSync, existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { consoleSummary } from '../reporting/console.js';
import { writeHtmlReport } from '../reporting/html.js';
import { replaceFile } from '../reporting/replace-file.js';
import { reportTitle, summaryOf, type Report, type ReportedExchange } from '../reporting/report.js';
import { SPEC_COPY, traceabilityMarkdown } from '../reporting/traceability.js';
import { REPLAY_FILE, replayScript } from '../reporting/replay-script.js';
import { specText } from '../contract/clauses.js';
import { exitCodeOf } from '../reporting/verdict.js';
import { junitXml } from '../reporting/junit.js';
import { githubAnnotations, githubStepSummary } from '../reporting/github.js';
import { fileSha256 } from './identity.js';
import { presentWithVitest } from './vitest-run.js';

/** The kept exchanges' redacted texts: summary.json leaves them out; a rebuild or a merge needs them. */
export const EXCHANGES_FILE = 'exchanges.json';
/** The run's identity and the SHA-256 of every other file the directory's outputs hold: a merge
 *  (or a rebuild) refuses a file changed since. Detects edits and mix-ups; anyone can recompute a
 *  hash, so it is no signature. */
export const MANIFEST_FILE = 'manifest.json';
const ORDER = ['report.html', 'traceability.md', SPEC_COPY, 'summary.json', 'junit.xml', 'allure-results', EXCHANGES_FILE, REPLAY_FILE, MANIFEST_FILE];

/** Every file under `path` (a file, or a directory walked), relative to `dir` with / separators. */
function filesUnder(dir: string, path: string): string[] {
  if (!statSync(path).isDirectory()) return [relative(dir, path).split(sep).join('/')];
  return readdirSync(path).sort().flatMap((name) => filesUnder(dir, join(path, name)));
}

interface Manifest {
  readonly run?: Report['run'];
  readonly files: Readonly<Record<string, string>>;
}

async function writeManifest(report: Report, dir: string, outputs: readonly string[]): Promise<string> {
  const files: Record<string, string> = {};
  for (const name of outputs.flatMap((o) => filesUnder(dir, o))) files[name] = await fileSha256(join(dir, name));
  const manifest: Manifest = { ...(report.run ? { run: report.run } : {}), files };
  return replaceFile(join(dir, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
}

/** Why a report directory's files are not the ones its run wrote, or undefined. The files a merge
 *  reads (summary.json, exchanges.json) must be listed; every listed file present must match. */
export async function verifyManifest(dir: string): Promise<string | undefined> {
  const path = join(dir, MANIFEST_FILE);
  if (!existsSync(path)) return `${dir} holds no ${MANIFEST_FILE} (written by every run of this harness): its files cannot be verified`;
  let manifest: Manifest;
  try {
    manifest = JSON.parse(readFileSync(path, 'utf8')) as Manifest;
    if (!manifest.files || typeof manifest.files !== 'object') throw new Error('no "files" member');
  } catch (e) {
    return `${path} cannot be read: ${(e as Error).message.split('\n')[0]}`;
  }
  for (const name of ['summary.json', EXCHANGES_FILE]) if (!(name in manifest.files)) return `${path} lists no ${name}`;
  for (const [name, sha] of Object.entries(manifest.files)) {
    const file = join(dir, name);
    if (name.split('/').includes('..') || !existsSync(file)) {
      if (name === 'summary.json' || name === EXCHANGES_FILE) return `${file} is missing`;
      continue; // an output not copied along (a merge reads only summary.json and exchanges.json)
    }
    if ((await fileSha256(file)) !== sha) return `${file} was changed after its run wrote it (its SHA-256 is not the one ${MANIFEST_FILE} gives)`;
  }
  const summaryRun = (JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as { run?: unknown }).run;
  if (JSON.stringify(summaryRun) !== JSON.stringify(manifest.run)) return `${path} names another run than ${join(dir, 'summary.json')}`;
  return undefined;
}

/** Never through what already stands at the path (a planted symlink): see replace-file.ts. */
const writeTo = replaceFile;

/** The outputs --reports chooses from. allure-results come from the presentation child (the slow
 *  part of writing); report.html is built from them, so choosing html writes allure-results too. */
export const REPORT_NAMES = ['summary', 'traceability', 'junit', 'allure', 'html'] as const;
export type ReportName = (typeof REPORT_NAMES)[number];
const EVERY_REPORT: ReadonlySet<ReportName> = new Set(REPORT_NAMES);

export interface Written {
  readonly report: Report;
  readonly outputs: readonly string[];
  readonly problems: readonly string[];
}

export async function writeReports(report: Report, dir: string, chosen: ReadonlySet<ReportName> = EVERY_REPORT): Promise<Written> {
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
  if (chosen.has('allure') || chosen.has('html')) await attempt('the Allure results', async () => {
    const { allureResults, peakRssBytes } = await presentWithVitest(report, dir);
    presented = true;
    presentationBytes = peakRssBytes;
    return [allureResults];
  });
  const done: Report = {
    ...report,
    timings: { ...report.timings, presentingMs: Math.round(performance.now() - t) },
    peakRss: { ...report.peakRss, runBytes: Math.max(report.peakRss.runBytes ?? 0, process.resourceUsage().maxRSS * 1024), ...(presentationBytes ? { presentationBytes } : {}) },
  };
  if (chosen.has('summary')) {
    await attempt('summary.json', () => [writeTo(join(dir, 'summary.json'), `${JSON.stringify(summaryOf(done), null, 2)}\n`)]);
    await attempt(EXCHANGES_FILE, () => [writeTo(join(dir, EXCHANGES_FILE), `${JSON.stringify(done.exchanges)}\n`)]);
    // 0600: it names the target and the requests sent, and is run with secrets set beside it.
    await attempt(REPLAY_FILE, () => [writeTo(join(dir, REPLAY_FILE), replayScript(done), 0o600)]);
  }
  if (chosen.has('traceability')) await attempt('traceability.md', () => [writeTo(join(dir, 'traceability.md'), traceabilityMarkdown(done))]);
  // What traceability.md's and report.html's clause links point at, beside them.
  if (chosen.has('traceability') || presented) await attempt(SPEC_COPY, () => [writeTo(join(dir, SPEC_COPY), specText())]);
  if (chosen.has('junit')) await attempt('junit.xml', () => [writeTo(join(dir, 'junit.xml'), junitXml(done))]);
  if (presented && chosen.has('html')) await attempt('report.html', () => writeHtmlReport(dir, reportTitle(done), done));
  // Last: it hashes what the others wrote.
  await attempt(MANIFEST_FILE, async () => [await writeManifest(done, dir, [...outputs])]);
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
  if (process.env.GITHUB_ACTIONS === 'true') {
    const annotations = githubAnnotations(report);
    if (annotations.length) process.stdout.write(`${annotations.join('\n')}\n`);
    const summaryFile = process.env.GITHUB_STEP_SUMMARY;
    if (summaryFile) {
      try {
        appendFileSync(summaryFile, githubStepSummary(report));
      } catch (e) {
        process.stderr.write(`${program}: cannot write the job summary ${summaryFile}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}\n`);
      }
    }
  }
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
  const code = exitCodeOf(report);
  if (report.verdict === 'conformant' && code === 2) {
    process.stderr.write(`${program}: nothing was compared with the legacy: it answered every request two ways (${report.differential!.inconclusive} request(s))\n`);
  } else if (report.verdict === 'conformant' && code === 1) {
    process.stderr.write(`${program}: the candidate differs from the legacy beyond noise (${report.differential!.differences} differing value(s))\n`);
  }
  return code;
}
