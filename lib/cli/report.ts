// `npm run report -- [--report-dir DIR]`: rebuilds every output of a report directory from its
// summary.json and exchanges.json (for instance after copying them off a CI runner), and exits as
// the run's results give (0/1/2).
// `npm run report -- --merge DIR DIR… [--report-dir OUT]`: merges the report directories of a run split
// into shards (--shard i/n) into one report with one verdict, and exits as that run would (0/1/2).
import { existsSync } from 'node:fs';
import { makeDirectory } from './make-directory.js';
import { join, resolve } from 'node:path';
import { verdictSummary } from '../reporting/console.js';
import { mergeReports } from '../reporting/merge.js';
import type { Report } from '../reporting/report.js';
import { consoleText } from '../reporting/display.js';
import { reportVerdict, VERDICT_WORDS } from '../reporting/verdict.js';
import { commandOf, parseOptions, usageOf, type OptionTable } from '../options.js';
import { CONFORMANCE_OPTIONS, reportsChosen } from './config.js';
import { againstStated, EXCHANGES_FILE, statedVerdict, finish, impliedReports, MANIFEST_FILE, readReport, removedLine, removeEarlierRun, UnreadableFile, verifyManifest, writeReports } from './write-reports.js';
import { errorLine } from './error-line.js';

export const REPORT_OPTIONS = {
  'report-dir': { kind: 'string', arg: 'DIR', env: 'REPORT_DIR', defaultText: 'reports', help: 'the report directory to rebuild, or where the merged report goes' },
  merge: { kind: 'boolean', help: 'merge the report directories given as arguments (the shards of one run)' },
  reports: CONFORMANCE_OPTIONS.reports,
  help: { kind: 'boolean', short: 'h', help: 'this text' },
} as const satisfies OptionTable;

const usage = () => `usage: ${commandOf('report')} [--report-dir DIR]
       ${commandOf('report')} --merge SHARD_DIR SHARD_DIR… [--report-dir OUT]
${usageOf(REPORT_OPTIONS)}`;

/** The directory's report; a merge (`verify`) first proves its files are those its run wrote. A rebuild
 *  verifies them when the directory has a manifest (an older one has none). */
async function load(dir: string, verify: boolean): Promise<Report | string> {
  if (!existsSync(join(dir, 'summary.json'))) return `${dir} holds no summary.json (run ${commandOf('conformance').replace(/ --$/, '')} first)`;
  if (verify || existsSync(join(dir, MANIFEST_FILE))) {
    const problem = await verifyManifest(dir);
    if (problem) return problem;
  }
  try {
    return readReport(dir);
  } catch (e) {
    return e instanceof UnreadableFile ? e.message : `${dir}/summary.json cannot be read: ${(e as Error).message.split('\n')[0]}`;
  }
}

/** A rebuild refused: its one line says that the outputs in `dir` (the evidence it could not read,
 *  never removed) are left as they were, and that what they state is not this command's exit 2. */
function notRebuilt(dir: string, line: string): number {
  const there = existsSync(join(dir, 'summary.json')) || existsSync(join(dir, MANIFEST_FILE));
  const stated = there ? statedVerdict(dir) : undefined;
  const left = !there ? '' : `; nothing was rebuilt: the outputs in ${dir} are left as they were${stated ? ` (summary.json there states ${stated.words}, exit ${stated.code})` : ''}, and are not this command's`;
  process.stderr.write(consoleText(`report: ${line}${left}\n`));
  return 2;
}

async function main(): Promise<number> {
  const parsed = parseOptions(REPORT_OPTIONS, process.argv.slice(2), process.env, true);
  if (!parsed.ok) { errorLine(`report: ${parsed.error}`); process.stderr.write(`${usage()}\n`); return 2; }
  const v = parsed.values;
  if (v.help) { process.stdout.write(`${usage()}\n`); return 0; }
  const dir = resolve(v['report-dir'] ?? 'reports');
  const chosen = reportsChosen(v.reports);
  if (typeof chosen === 'string') { errorLine(`report: ${chosen}`); return 2; }
  for (const note of impliedReports(chosen)) errorLine(`note: ${note}`);
  if (!v.merge) {
    if (parsed.positionals.length) { errorLine(`report: unexpected ${parsed.positionals[0]} (did you mean --merge?)`); return 2; }
    const read = await load(dir, false);
    if (typeof read === 'string') return notRebuilt(dir, read);
    // The verdict the results give, not the one written (an older harness may have reached another),
    // stated by every output and the exit code, as the run would have.
    let report: Report;
    try {
      report = { ...read, verdict: reportVerdict(read) };
    } catch (e) {
      return notRebuilt(dir, `${join(dir, 'summary.json')} is not one this harness writes (${(e as Error).message.split('\n')[0]})`);
    }
    // Outputs not chosen would keep stating the verdict written (or the problems its outputs met,
    // which a rebuild writing them anew has not): all are written again.
    const { stated, now, differs: statedOtherwise } = againstStated(dir, report);
    const differs = report.verdict !== read.verdict || statedOtherwise;
    const again = differs ? reportsChosen(undefined) as ReadonlySet<string> : chosen;
    if (differs) process.stderr.write(consoleText(`note: every output is written again: summary.json says ${stated ? `${stated.words} (exit ${stated.code})` : VERDICT_WORDS[read.verdict]}, the results it holds ${now.words} (exit ${now.code})\n`));
    return finish(await writeReports(report, dir, again, (r) => process.stdout.write(verdictSummary(r)), ['summary.json', EXCHANGES_FILE]), 'report');
  }
  const shards = parsed.positionals.map((d) => resolve(d));
  if (shards.length < 1) { process.stderr.write('report: --merge needs the report directories of the shards\n'); return 2; }
  if (shards.includes(dir)) { errorLine(`report: the merged report cannot go into one of the shards' directories (${dir})`); return 2; }
  // A merge refused leaves no earlier merge's outputs in the directory, stating another verdict.
  const since = Date.now();
  const refused = (line: string): number => {
    errorLine(`report: ${line}`);
    const { removed, problems } = removeEarlierRun(dir, since);
    if (removed.length) process.stdout.write(removedLine(removed));
    for (const p of problems) errorLine(`report: ${p}`);
    return 2;
  };
  const reports: Report[] = [];
  for (const d of shards) {
    const r = await load(d, true);
    if (typeof r === 'string') return refused(r);
    reports.push(r);
  }
  let merged: ReturnType<typeof mergeReports>;
  try {
    merged = mergeReports(reports, parsed.positionals);
  } catch (e) {
    // Every file was the one its run wrote (the manifests say so): one was written by no run of this harness.
    return refused(`cannot merge: a shard's summary.json is not one this harness writes (${(e as Error).message.split('\n')[0]})`);
  }
  if (!merged.ok) return refused(`cannot merge: ${merged.error}`);
  try {
    makeDirectory(dir);
  } catch (e) {
    errorLine(`report: cannot use the report directory ${dir}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    return 2;
  }
  process.stdout.write(`report: merged ${shards.length} report(s) into ${dir}\n`);
  // An earlier merge of the run here (other shards, say) shares its start: its outputs not chosen now
  // would stay, stating its verdict. As a rebuild does, every output is written again when it differs.
  const { stated, now, differs } = againstStated(dir, merged.report);
  if (differs && stated) process.stderr.write(consoleText(`note: every output is written again: the report directory's summary.json says ${stated.words} (exit ${stated.code}), the merge ${now.words} (exit ${now.code})\n`));
  // The merged verdict is printed as soon as summary.json and the fast reports are written.
  return finish(await writeReports(merged.report, dir, differs ? reportsChosen(undefined) as ReadonlySet<string> : chosen, (r) => process.stdout.write(verdictSummary(r))), 'report');
}

main()
  .catch((e: unknown) => { errorLine(`report: ${(e as Error).message.split('\n')[0]}`); return 2; })
  .then((code) => { process.exitCode = code; });
