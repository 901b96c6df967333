// Writes every output of a finished report into a report directory, and says how the run ends: the
// one place the CLI, `npm run report` (rebuild) and `npm run report -- --merge` share. Every output
// that can be written is written, and the verdict always reaches the console; an output that fails
// is named on stderr and the run exits 2.
import { appendFileSync, existsSync, lstatSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { basename, join, relative, sep } from 'node:path';
import { closingLines, consoleSummary } from '../reporting/console.js';
import { replaceFile } from '../reporting/replace-file.js';
import { statusOfWord, type Report, type ReportedExchange } from '../reporting/report.js';
import { SPEC_COPY } from '../reporting/traceability.js';
import { REPLAY_FILE } from '../reporting/replay-script.js';
import { decidingChecks, exitCodeOf, VERDICT_WORDS, verdictWords } from '../reporting/verdict.js';
import { jsonSyntaxError } from '../json/parse.js';
import { measureJson } from '../json/limits.js';
import { withThousands } from '../digits.js';
import { githubAnnotations, githubStepSummary } from '../reporting/github.js';
import { fileSha256, fileVersion, smallFileSha256 } from './identity.js';
import { boundedBytes, UnreadableFile } from './bounded-file.js';
import type { ReportWriter } from './writers/report-writer.js';
import { summaryWriter } from './writers/summary-json.js';
import { EXCHANGES_FILE, exchangesWriter } from './writers/exchanges-json.js';
import { replayWriter } from './writers/replay-sh.js';
import { traceabilityWriter } from './writers/traceability-md.js';
import { junitWriter } from './writers/junit-xml.js';
import { allureWriter } from './writers/allure-results.js';
import { htmlWriter } from './writers/report-html.js';
import { peakRssBytes } from '../peak-rss.js';
import { endChildren } from '../child-ahead.js';
import { removeHeldWorkDirs, removeLeftWorkDirs } from '../reporting/work-dirs.js';
import { errorLine } from './error-line.js';

export { EXCHANGES_FILE };

/** Every report writer, in the order they write (the slow ones after the verdict is printed).
 *  Adding a report format: one file in writers/ and one entry here. */
export const WRITERS: readonly ReportWriter[] = [summaryWriter, exchangesWriter, replayWriter, traceabilityWriter, junitWriter, allureWriter, htmlWriter];

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

/** The SHA-256s the manifest will need, of the files each writer wrote, taken while the next waits on
 *  its child (the presentation, Allure): a few milliseconds at a time, so that a child's answer is
 *  never kept waiting long. The manifest takes a hash from here only for the same version of the
 *  file (hashing allure-results' 800 files was about 0.1 s after the last child of a cold run). */
class HashesAhead {
  private readonly known = new Map<string, { readonly sha256: string; readonly version: string }>();
  private readonly queue: string[] = [];
  private stopped = false;
  add(paths: readonly string[]): void {
    const idle = this.queue.length === 0;
    this.queue.push(...paths);
    if (idle && this.queue.length) setImmediate(this.step);
  }
  private readonly step = () => {
    const until = performance.now() + HASH_SLICE_MS;
    while (!this.stopped && this.queue.length && performance.now() < until) {
      const path = this.queue.shift()!;
      try {
        const hashed = smallFileSha256(path);
        if (hashed) this.known.set(path, hashed);
      } catch {
        // gone or unreadable: the manifest meets it itself
      }
    }
    if (!this.stopped && this.queue.length) setImmediate(this.step);
  };
  async sha256(path: string): Promise<string> {
    const known = this.known.get(path);
    return known && known.version === fileVersion(path) ? known.sha256 : fileSha256(path);
  }
  stop(): void {
    this.stopped = true;
  }
}
const HASH_SLICE_MS = 5;

interface Manifest {
  readonly run?: Report['run'];
  /** When the run began: a rebuild of its outputs keeps it, another run has its own (earlierOutputs). */
  readonly startedAt?: string;
  readonly files: Readonly<Record<string, string>>;
}

/** `kept`: files of this run written before (a rebuild's), listed with the hashes they were written with. */
async function writeManifest(report: Report, dir: string, outputs: readonly string[], ahead: HashesAhead, kept: Readonly<Record<string, string>> = {}): Promise<string> {
  const files: Record<string, string> = { ...kept };
  for (const name of outputs.flatMap((o) => filesUnder(dir, o))) files[name] = await ahead.sha256(join(dir, name));
  const manifest: Manifest = { ...(report.run ? { run: report.run } : {}), startedAt: report.startedAt, files };
  return replaceFile(join(dir, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
}

/** The files the manifest in `dir` lists (name -> SHA-256), and whether the run begun at `startedAt`
 *  wrote them (a rebuild of a run's outputs is the same run); undefined without a readable manifest:
 *  a file the harness cannot prove it wrote is never touched. */
function earlierManifest(dir: string, startedAt: string): { readonly sameRun: boolean; readonly began?: string; readonly files: Readonly<Record<string, string>> } | undefined {
  try {
    const manifest = readJsonFile(dir, MANIFEST_FILE) as Manifest;
    // A manifest of before startedAt was kept in it: its run's summary.json says when it began.
    const began = manifest.startedAt ?? (readJsonFile(dir, 'summary.json') as { startedAt?: string }).startedAt;
    const files = Object.fromEntries(Object.entries(manifest.files ?? {}).filter(([name]) => {
      const top = name.split('/')[0]!;
      return typeof manifest.files[name] === 'string' && top !== '' && top !== '.' && top !== '..' && top !== MANIFEST_FILE && !name.includes('\\') && !name.split('/').includes('..');
    }));
    return { sameRun: began === startedAt, ...(began !== undefined ? { began } : {}), files };
  } catch {
    return undefined;
  }
}
const topName = (name: string): string => name.split('/')[0]!;

/** Report directories this process wrote reports into (writeReports), and the outputs (top names) it wrote there. */
const wroteInto = new Map<string, Set<string>>();

/** A run that ends (exit 2) without writing its reports into `dir`, which it accepted at `since`
 *  (ms): the outputs an earlier run wrote there (its manifest lists them, the manifest too) would
 *  state that run's verdict beside this exit code, so they are removed. Outputs of this run (a worker
 *  wrote them, e.g. the proxy's judge) and files no manifest lists are left alone. */
export function removeEarlierRun(dir: string, since: number): { readonly removed: readonly string[]; readonly problems: readonly string[] } {
  const partial = removePartial(dir);
  const earlier = wroteInto.has(dir) ? undefined : earlierManifest(dir, '');
  if (!earlier || !(Date.parse(earlier.began ?? '') < since)) return { removed: [], problems: partial };
  const { removed, problems } = removeOutputs(dir, [...Object.keys(earlier.files).map(topName), MANIFEST_FILE], 'an earlier run\'s output');
  return { removed, problems: [...partial, ...problems] };
}

function removeOutputs(dir: string, names: readonly string[], what: string): { readonly removed: readonly string[]; readonly problems: readonly string[] } {
  const removed: string[] = [];
  const problems: string[] = [];
  for (const name of [...new Set(names)].sort()) {
    if (!existsSync(join(dir, name))) continue;
    try {
      rmSync(join(dir, name), { recursive: true, force: true });
      removed.push(name);
    } catch (e) {
      problems.push(`cannot remove ${name}, ${what}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message.split('\n')[0]}`);
    }
  }
  return { removed, problems };
}

/** Where a live run's reports are written before they replace the last set whole, and where the
 *  outputs they replace go meanwhile: hidden directories in the report directory (one file system,
 *  so each output is moved by one rename). */
const STAGING = '.conformance-writing';
const REPLACED = '.conformance-replaced';
/** gate[0]: FREE, PUTTING (a set being put in place) or STOPPED (stopped at once: no set more);
 *  gate[1]: how many sets were put in place. Shared with the proxy's judge thread (useLiveGate). */
const FREE = 0;
const PUTTING = 1;
const STOPPED = 2;
let gate = new Int32Array(new SharedArrayBuffer(8));
/** The gate of this thread, for a thread that writes this run's reports (the proxy's judge). */
export const liveGate = (): SharedArrayBuffer => gate.buffer as SharedArrayBuffer;
export const useLiveGate = (shared: SharedArrayBuffer): void => { gate = new Int32Array(shared); };

/** What a stop at once (a second stop) did to the report directory: the tail of its one line, and
 *  the exit code, which is the verdict the outputs left there state. */
export interface AtOnce {
  readonly said: string;
  readonly code: number;
}

/** A run stopped at once (a second stop) exits before its last reports are written. A live run whose
 *  reports written while it went on were put in place whole (writeWhole) keeps them: they say the run
 *  was in progress, and the exit code is the one they state (INCOMPLETE 2, NOT CONFORMANT 1); only
 *  what a write under way left half done goes. Otherwise (a run that writes only at its end, or a
 *  live one before its first set) exit 2, and every output the manifest in `dir` lists, the manifest,
 *  and every output this process wrote there are removed: an earlier run's, or this run's written so
 *  far, would state another verdict. Files no manifest lists are left alone. */
/** Whether this process printed a verdict on the console (writeReports' onVerdict): a stop at once
 *  after it says the verdict again. */
let verdictShown = false;

export const stoppedAtOnce = (dir: string, program: string) => (): AtOnce => {
  // A set being put in place (the proxy's judge puts it from its own thread) is let finish; none after.
  for (let was = Atomics.compareExchange(gate, 0, FREE, STOPPED); was === PUTTING; was = Atomics.compareExchange(gate, 0, FREE, STOPPED)) Atomics.wait(gate, 0, PUTTING, 100);
  // A presentation child would go on writing into the set under way after the exit.
  endChildren();
  for (const p of [...removePartial(dir), ...removeHeldWorkDirs()]) errorLine(`${program}: ${p}`);
  const kept = Atomics.load(gate, 1) > 0 && !wroteInto.has(dir) ? statedVerdict(dir) : undefined;
  if (kept) return { said: `kept the last reports written whole (${kept.words}), exit ${kept.code}`, code: kept.code };
  const listed = earlierManifest(dir, '');
  const { removed, problems } = removeOutputs(dir, [...Object.keys(listed?.files ?? {}).map(topName), ...(listed ? [MANIFEST_FILE] : []), ...(wroteInto.get(dir) ?? [])], 'an output of this run or an earlier one');
  if (removed.length) process.stdout.write(`Removed from the report directory (they would state another verdict than exit 2): ${removed.join(', ')}\n`);
  for (const p of problems) errorLine(`${program}: ${p}`);
  // The console stated a verdict before the reports were written: it is said again, as the exit is.
  if (verdictShown) process.stdout.write(`Verdict: ${VERDICT_WORDS.incomplete} (stopped at once while the reports were written: none kept)\n`);
  return { said: 'no reports written', code: 2 };
};

/** Removes what a write left half done in `dir` (a live run's hidden set under way, the outputs it
 *  moved aside; any run's work directories, not this process's own): a stop at once removes it, and
 *  so does the next run into `dir`, should a thread or a child have written into it after that stop,
 *  or the process have been killed. Never listed in a manifest. */
function removePartial(dir: string): string[] {
  const problems: string[] = removeLeftWorkDirs(dir);
  for (const partial of [STAGING, REPLACED]) {
    try {
      rmSync(join(dir, partial), { recursive: true, force: true, maxRetries: 3 });
    } catch (e) {
      problems.push(`cannot remove ${partial}, a write left half done: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message.split('\n')[0]}`);
    }
  }
  return problems;
}

/** The verdict summary.json in `dir` states, and the exit code it gives; undefined when unreadable. */
export function statedVerdict(dir: string): { readonly words: string; readonly code: number } | undefined {
  try {
    const { verdictWords: words, exitCode: code } = readJsonFile(dir, 'summary.json') as { verdictWords?: unknown; exitCode?: unknown };
    return typeof words === 'string' && (code === 0 || code === 1 || code === 2) ? { words, code } : undefined;
  } catch {
    return undefined;
  }
}

/** The verdict `dir`'s summary.json states beside the one `report` states now: where they differ
 *  (words or exit code), a rebuild or a merge writes every output again, or one not chosen would
 *  keep stating the other. */
export function againstStated(dir: string, report: Report): { readonly stated?: { readonly words: string; readonly code: number }; readonly now: { readonly words: string; readonly code: number }; readonly differs: boolean } {
  const stated = statedVerdict(dir);
  const now = { words: verdictWords(report), code: exitCodeOf(report) };
  return { ...(stated ? { stated } : {}), now, differs: stated !== undefined && (stated.words !== now.words || stated.code !== now.code) };
}

/** Writes the reports of a live run (the proxy, the judging reference) whole or not at all: into a
 *  hidden directory first, then put in place in one synchronous step, which a signal's handler never
 *  interrupts (on this thread; the proxy's judge holds the gate meanwhile). A stop at once then finds
 *  the last set whole, every output of one write; an earlier run's outputs the set does not replace
 *  are removed as it is put in place. */
export async function writeWhole(report: Report, dir: string, chosen?: ReadonlySet<ReportName>): Promise<Written> {
  const staging = join(dir, STAGING);
  if (Atomics.load(gate, 0) === STOPPED) return { report, outputs: [], problems: [] }; // stopped at once: exiting
  try {
    rmSync(staging, { recursive: true, force: true });
    mkdirSync(staging);
  } catch (e) {
    return { report, outputs: [], problems: [`cannot write the reports into ${dir}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message.split('\n')[0]}`] };
  }
  const written = await writeReports(report, staging, chosen);
  const inPlace = (path: string) => join(dir, relative(staging, path));
  const earlier = earlierManifest(dir, report.startedAt);
  const names = readdirSync(staging).filter((n) => !n.startsWith('.')).sort(); // not a temporary file a writer left
  const stale = Object.keys(earlier?.files ?? {}).map(topName).filter((n, i, all) => all.indexOf(n) === i && !names.includes(n) && lstatSync(join(dir, n), { throwIfNoEntry: false }) !== undefined);
  if (Atomics.compareExchange(gate, 0, FREE, PUTTING) !== FREE) { // stopped at once: exiting
    await rm(staging, { recursive: true, force: true });
    return { ...written, outputs: [] };
  }
  const problems: string[] = [];
  try {
    putInPlace(dir, staging, names, stale);
    Atomics.add(gate, 1, 1);
  } catch (e) {
    problems.push(`cannot put the reports in place: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message.split('\n')[0]}`);
  } finally {
    Atomics.store(gate, 0, FREE);
    Atomics.notify(gate, 0);
  }
  for (const partial of [staging, join(dir, REPLACED)]) await rm(partial, { recursive: true, force: true });
  const removedEarlier = earlier?.sameRun ? [] : stale;
  return {
    ...written, outputs: problems.length ? [] : written.outputs.map(inPlace), problems: [...written.problems, ...problems],
    ...(removedEarlier.length && !problems.length ? { removedEarlier } : {}),
  };
}

/** Moves each of `names` from `staging` into `dir`, the output standing there moved aside first, and
 *  `stale` aside too; synchronous, so that no signal's handler runs in between. On a failure the
 *  outputs moved so far go back. */
function putInPlace(dir: string, staging: string, names: readonly string[], stale: readonly string[]): void {
  const aside = join(dir, REPLACED);
  rmSync(aside, { recursive: true, force: true });
  mkdirSync(aside);
  const undo: (() => void)[] = [];
  const move = (from: string, to: string) => { renameSync(from, to); undo.push(() => renameSync(to, from)); };
  try {
    for (const name of stale) move(join(dir, name), join(aside, name));
    // The manifest last: it lists the others as they now stand.
    for (const name of [...names.filter((n) => n !== MANIFEST_FILE), ...names.filter((n) => n === MANIFEST_FILE)]) {
      if (lstatSync(join(dir, name), { throwIfNoEntry: false })) move(join(dir, name), join(aside, name));
      move(join(staging, name), join(dir, name));
    }
  } catch (e) {
    for (const back of undo.reverse()) try { back(); } catch { /* left aside: the next write or stop removes it */ }
    throw e;
  }
}

/** The console's line naming an earlier run's outputs removed. */
export const removedLine = (names: readonly string[]): string =>
  `Removed from the report directory (an earlier run's outputs, not written by this run): ${names.join(', ')}\n`;

const MIB = 1024 * 1024;
/** The most a rebuild or a merge reads of each JSON file of a report directory, checked (fstat)
 *  before a byte is read; well above what a run writes:
 *  - manifest.json: about 110 bytes per file listed; a full run lists about 800 (90 KB).
 *  - summary.json: 80 KB for a probe run. Per check (78), at most MAX_EXAMPLES (50) examples of a
 *    400-character message and a 200-character value and MAX_GROUPS (100) groups: about 8 MB in all;
 *    a failed check's replay carries its request's body (an account's line is at most 1 MiB).
 *  - exchanges.json: 100 KB for a probe run. The 20 probes and MAX_EXAMPLE_EXCHANGES (5) per check,
 *    410 exchanges, each showing at most 256 KiB (MAX_SHOWN_TEXT) of its response body: 103 MiB
 *    when every answer is that long.
 *  A merge reads each shard's within these (it holds them all at once: so many times these at most),
 *  and writes a report bounded as one run's (merge.ts keeps the examples one whole run keeps). */
export const REPORT_FILE_BYTES = { [MANIFEST_FILE]: 16 * MIB, 'summary.json': 64 * MIB, [EXCHANGES_FILE]: 160 * MIB } as const;
export type ReportFile = keyof typeof REPORT_FILE_BYTES;
/** JSON values (measureJson's count) per file: a few bytes of text
 *  make an object of 50 or more (16 MiB of `{},` took 566 MB to parse), so the size alone does not
 *  bound the memory. A probe run's summary.json holds 2 000 values; with every example and group
 *  above, about 80 000. */
export const REPORT_FILE_VALUES = 1_000_000;
/** Nesting: a run writes under 10 levels. */
const REPORT_FILE_DEPTH = 64;

/** A report file that cannot be read as the harness wrote it: the message names it. */
export { UnreadableFile };

const mib = (n: number) => `${(n / MIB).toFixed(n < 10 * MIB ? 1 : 0)} MiB`;

/** The text of `dir`/`name`, refused past its bound: never more than its size when opened is read,
 *  however the file grows meanwhile. */
function boundedText(path: string, name: ReportFile): string {
  return boundedBytes(path, REPORT_FILE_BYTES[name], (size) => `${path} is ${mib(size)}, past the ${mib(REPORT_FILE_BYTES[name])} a report directory's ${name} may hold (no run writes one so large): not read`).toString('utf8');
}

/** The JSON of a file the harness wrote, within its bounds; an UnreadableFile naming the file and
 *  where its JSON breaks, never quoting it (V8's message quotes a stretch of the text, and a tampered
 *  file's may be anything). */
function readJsonFile(dir: string, name: ReportFile): unknown {
  const path = join(dir, name);
  const text = boundedText(path, name);
  // Counted before JSON.parse builds anything; names and numbers are bounded by the size alone.
  const shape = measureJson(text, { depth: REPORT_FILE_DEPTH, nodes: REPORT_FILE_VALUES, children: Infinity, attributes: Infinity, numberLength: Infinity, nameLength: Infinity });
  if (shape.limit === 'depth') throw new UnreadableFile(`${path} nests deeper than ${REPORT_FILE_DEPTH} levels (no run writes one so deep): not read`);
  if (shape.limit) throw new UnreadableFile(`${path} holds more than ${withThousands(REPORT_FILE_VALUES)} JSON values (no run writes so many): not read`);
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new UnreadableFile(`${path} is not JSON: ${jsonSyntaxError(e, text)}`);
  }
}

/** Why a report directory's files are not the ones its run wrote, or undefined. The files a merge
 *  reads (summary.json, exchanges.json) must be listed; every listed file present must match. */
export async function verifyManifest(dir: string): Promise<string | undefined> {
  const path = join(dir, MANIFEST_FILE);
  if (!existsSync(path)) return `${dir} holds no ${MANIFEST_FILE} (written by every run of this harness): its files cannot be verified`;
  let manifest: Manifest;
  try {
    manifest = readJsonFile(dir, MANIFEST_FILE) as Manifest;
    if (manifest === null || typeof manifest !== 'object' || !manifest.files || typeof manifest.files !== 'object') throw new Error('it has no "files" object');
  } catch (e) {
    return e instanceof UnreadableFile ? e.message : `${path} cannot be read: ${(e as Error).message.split('\n')[0]}`;
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
  let summaryRun: unknown;
  try {
    summaryRun = (readJsonFile(dir, 'summary.json') as { run?: unknown } | null)?.run;
  } catch (e) {
    return (e as Error).message;
  }
  if (JSON.stringify(summaryRun) !== JSON.stringify(manifest.run)) return `${path} names another run than ${join(dir, 'summary.json')}`;
  return undefined;
}

/** The outputs --reports chooses from: each writer's name, or the choice it is part of. */
export const REPORT_NAMES: readonly string[] = [...new Set(WRITERS.map((w) => w.partOf ?? w.name))];
export type ReportName = string;
const EVERY_REPORT: ReadonlySet<ReportName> = new Set(REPORT_NAMES);

export interface Written {
  readonly report: Report;
  readonly outputs: readonly string[];
  readonly problems: readonly string[];
  /** Set when the verdict was printed as soon as the fast writers were done. */
  readonly verdictPrinted?: boolean;
  /** The verdict's words then: a problem of a slower writer came after them. */
  readonly verdictPrintedAs?: string;
  /** Outputs an earlier run wrote here (its manifest lists them) that this run did not: removed, so
   *  that none states another run's verdict beside this one's. */
  readonly removedEarlier?: readonly string[];
}

/** The writers a choice of --reports runs: those chosen, and those a chosen one is made from. */
export const chosenWriters = (chosen: ReadonlySet<ReportName>): ReportWriter[] => {
  const picked = (w: ReportWriter) => chosen.has(w.partOf ?? w.name);
  return WRITERS.filter((w) => picked(w) || WRITERS.some((o) => o.needs === w.name && picked(o)));
};

/** A run that will write the chosen reports has taken its last request or recorded exchange (the
 *  session's onLastTaken): the slow writers start their children now, loading while the run judges
 *  what is left (a run that ends without them loses only the head start). Not at the run's start: on
 *  a machine of two cores its loading (0.44 s of CPU) competed with a long run's judging and a
 *  target beside it. Not for a long-running mode, whose reports come much later. */
export const startSlowWriters = (chosen: ReadonlySet<ReportName> = EVERY_REPORT): void => { for (const w of chosenWriters(chosen)) w.early?.(); };

/** What a choice of --reports writes beyond the names given, said once before the run: report.html
 *  is built from the Allure results, so `--reports html` writes allure-results too (the choice stands;
 *  refusing it would make everyone spell out an input of the output they asked for). */
export const impliedReports = (chosen: ReadonlySet<ReportName>): string[] => WRITERS.filter((w) => w.needs && chosen.has(w.partOf ?? w.name))
  .flatMap((w) => WRITERS.filter((o) => o.name === w.needs && !chosen.has(o.partOf ?? o.name))
    .map((o) => `--reports ${w.partOf ?? w.name} writes ${o.partOf ?? o.name} too (${w.what} is built from ${o.what})`));

/** Writes the chosen reports: the fast writers, then `onVerdict` (the console's verdict), then the
 *  slow ones (the presentation and the HTML), then the manifest, which hashes what the others wrote.
 *  Every output that can be written is; one that fails is a problem named, not a stop, and it is in
 *  the report (outputProblems: exit 2) from then on. An output written before a problem arose is
 *  written again with it, so that none states another verdict than the exit code; summary.json last.
 *  `read`: the files of `dir` a rebuild made the report from; those it does not write again stay
 *  listed in the manifest, which the next rebuild or merge needs them in. */
export async function writeReports(report: Report, dir: string, chosen: ReadonlySet<ReportName> = EVERY_REPORT, onVerdict?: (report: Report) => void, read: readonly ReportFile[] = []): Promise<Written> {
  const outputs: string[] = [];
  const names = wroteInto.get(dir) ?? new Set<string>();
  wroteInto.set(dir, names);
  const earlier = earlierManifest(dir, report.startedAt);
  const wrote = new Set<string>();
  /** Per writer that wrote: how many output problems the report it wrote held. */
  const stated = new Map<ReportWriter, number>();
  const outputProblems = (): readonly string[] => current.outputProblems ?? [];
  const problem = (p: string) => { current = { ...current, outputProblems: [...outputProblems(), p] }; };
  const ahead = new HashesAhead();
  const removals: Promise<void>[] = [];
  const finishing: Promise<void>[] = [];
  let current: Report = { ...withoutOutputProblems(report), peakRss: { ...report.peakRss, runBytes: Math.max(report.peakRss.runBytes ?? 0, peakRssBytes()) } };
  // What a live run stopped at once left half written here (not in a set's own staging: writeWhole).
  if (basename(dir) !== STAGING) for (const p of removePartial(dir)) problem(p);
  const write = async (w: ReportWriter) => {
    if (w.needs && !wrote.has(w.needs)) return;
    try {
      const out = await w.write(current, dir);
      for (const f of out.files) if (!outputs.includes(f)) outputs.push(f);
      for (const f of out.files) names.add(topName(relative(dir, f).split(sep).join('/')));
      wrote.add(w.name);
      if (out.report) current = out.report;
      stated.set(w, outputProblems().length);
      if (out.removed) removals.push(out.removed);
      const hashAhead = () => {
        try {
          ahead.add(out.files.flatMap((f) => filesUnder(dir, f)).map((name) => join(dir, name)));
        } catch {
          // a file gone meanwhile: the manifest meets it itself
        }
      };
      if (!out.finishing) hashAhead();
      else {
        // Files still being written: hashed once in place; not listed as written if they cannot be.
        finishing.push(out.finishing.then(hashAhead, (e: unknown) => {
          problem(`cannot write ${w.what}: ${(e as Error).message.split('\n')[0]}`);
          for (const f of out.files) if (outputs.includes(f)) outputs.splice(outputs.indexOf(f), 1);
        }));
      }
    } catch (e) {
      problem(`cannot write ${w.what}: ${(e as Error).message.split('\n')[0]}`);
    }
  };
  /** Writes again each output written before the last problem arose (summary.json last). */
  const restate = async () => {
    const stale = writers.filter((w) => wrote.has(w.name) && (stated.get(w) ?? 0) < outputProblems().length);
    for (const w of [...stale.filter((x) => x !== summaryWriter), ...stale.filter((x) => x === summaryWriter)]) await write(w);
    await Promise.all(finishing); // a presentation written again is copied in before anything hashes it
  };
  const writers = chosenWriters(chosen);
  for (const w of writers) w.prepare?.();
  for (const w of writers.filter((x) => !x.slow)) await write(w);
  onVerdict?.(current);
  if (onVerdict) verdictShown = true;
  const printedAs = verdictWords(current);
  const before = current;
  for (const w of writers.filter((x) => x.slow)) await write(w);
  // What the slow writers taught the report (the presentation's time and memory) reaches summary.json.
  if (current !== before && wrote.has(summaryWriter.name)) {
    current = { ...current, peakRss: { ...current.peakRss, runBytes: Math.max(current.peakRss.runBytes ?? 0, peakRssBytes()) } };
    await write(summaryWriter);
  }
  await Promise.all(finishing);
  const removedEarlier: string[] = [];
  const written = new Set(outputs.map((o) => relative(dir, o).split(sep)[0]!));
  // Another run's outputs that this one did not replace are removed; this run's (a rebuild of some of
  // them) stay listed, with the hashes they were written with, while they are there.
  const notWritten = Object.keys(earlier?.files ?? {}).filter((name) => !written.has(topName(name)));
  const kept = earlier?.sameRun ? Object.fromEntries(notWritten.filter((n) => existsSync(join(dir, n))).map((n) => [n, earlier.files[n]!])) : {};
  for (const name of earlier?.sameRun ? [] : [...new Set(notWritten.map(topName))].sort()) {
    try {
      rmSync(join(dir, name), { recursive: true, force: true });
      removedEarlier.push(name);
    } catch (e) {
      problem(`cannot remove ${name}, an earlier run's output this run did not write: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message.split('\n')[0]}`);
    }
  }
  // Without an earlier manifest of this run (an older directory has none), they are listed as they are now.
  for (const name of read) if (!written.has(name) && !(name in kept) && existsSync(join(dir, name))) kept[name] = await fileSha256(join(dir, name));
  await restate();
  try {
    names.add(MANIFEST_FILE);
    outputs.push(await writeManifest(current, dir, [...outputs], ahead, kept));
  } catch (e) {
    problem(`cannot write ${MANIFEST_FILE}: ${(e as Error).message.split('\n')[0]}`);
    await restate(); // no manifest hashes them now
  } finally {
    ahead.stop();
  }
  await Promise.all(removals);
  const rank = (path: string) => ORDER.findIndex((name) => path.endsWith(name));
  const problems = [...(current.runProblems ?? []), ...outputProblems()];
  return { report: current, outputs: outputs.sort((a, b) => rank(a) - rank(b)), problems, ...(onVerdict ? { verdictPrinted: true, verdictPrintedAs: printedAs } : {}), ...(removedEarlier.length ? { removedEarlier } : {}) };
}

/** A report without the problems of writing its outputs: those were about one directory's writing
 *  (a rebuild or a merge writes anew). */
export function withoutOutputProblems(report: Report): Report {
  const { outputProblems: _o, ...rest } = report;
  return rest;
}

/** A report directory's report, as written (summary.json with exchanges.json's texts put back), read
 *  within their bounds. */
export function readReport(dir: string): Report {
  // The verdict's words and exit code as written are left out: made again from the report (a rebuild
  // drops outputProblems, a restatement adds a problem), they would otherwise be those of before.
  const { verdictWords: _w, exitCode: _e, ...written } = readJsonFile(dir, 'summary.json') as Report & { verdictWords?: unknown; exitCode?: unknown; exchanges: Omit<ReportedExchange, 'request' | 'response'>[] };
  const summary = { ...written, checks: written.checks.map((c) => ({ ...c, status: statusOfWord(c.status) })) };
  // An older directory has no exchanges.json: its exchanges without their texts.
  const texts = existsSync(join(dir, EXCHANGES_FILE)) ? readJsonFile(dir, EXCHANGES_FILE) as ReportedExchange[] : [];
  const byId = new Map(texts.map((e) => [e.id, e]));
  return { ...withoutOutputProblems(summary), exchanges: summary.exchanges.map((e) => ({ ...e, request: byId.get(e.id)?.request ?? '', response: byId.get(e.id)?.response ?? '' })) };
}

/** The outputs a worker wrote of this run (begun at `since`, ms) and could not write a last time (the
 *  proxy's judge, lost): written again from summary.json with `problem` (exit 2), so that none keeps
 *  the verdict it stated before; undefined when the directory holds no summary.json of this run.
 *  Written whole or not at all, as the worker's were (writeWhole): a stop at once meanwhile keeps the
 *  worker's last set. */
export async function restateWithProblem(dir: string, since: number, chosen: ReadonlySet<ReportName> | undefined, problem: string): Promise<Written | undefined> {
  let report: Report;
  try {
    report = readReport(dir);
  } catch {
    return undefined;
  }
  if (!(Date.parse(report.startedAt) >= since)) return undefined;
  // The run has ended: no more "in progress"; the verdict of the part judged stays (INCOMPLETE, say).
  const { inProgress: _p, ...ended } = report;
  return writeWhole({ ...ended, runProblems: [...(report.runProblems ?? []), problem] }, dir, chosen);
}

/** Prints the console summary and problems; the exit code the verdict calls for. */
export function finish(written: Written, program: string): number {
  const { report, outputs, problems } = written;
  // A problem that came after the verdict was printed changes its words: said again, as they are now.
  const again = written.verdictPrinted && written.verdictPrintedAs !== verdictWords(report) ? `Verdict: ${verdictWords(report)}\n` : '';
  process.stdout.write(written.verdictPrinted ? again + closingLines(report, outputs) : consoleSummary(report, outputs));
  if (written.removedEarlier) process.stdout.write(removedLine(written.removedEarlier));
  if (process.env.GITHUB_ACTIONS === 'true') {
    const annotations = githubAnnotations(report);
    if (annotations.length) process.stdout.write(`${annotations.join('\n')}\n`);
    const summaryFile = process.env.GITHUB_STEP_SUMMARY;
    if (summaryFile) {
      try {
        appendFileSync(summaryFile, githubStepSummary(report));
      } catch (e) {
        errorLine(`${program}: cannot write the job summary ${summaryFile}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
      }
    }
  }
  if (problems.length) {
    for (const p of problems) errorLine(`${program}: ${p}`);
    return 2;
  }
  if (report.verdict === 'unreachable') {
    errorLine(`${program}: cannot reach ${report.target.baseUrl}: ${report.unreachable}`);
    return 2;
  }
  if (report.verdict === 'incomplete') {
    const skipped = decidingChecks(report.checks, report.gate ?? 'must').filter((c) => c.status === 'skip');
    const unsent = report.counts.exchanges.notSent?.case;
    process.stderr.write(report.inProgress ? `${program}: run incomplete: these reports were written while it went on (${report.counts.exchanges.exchanges} exchange(s) judged so far)\n`
      : report.stopped ? `${program}: run incomplete: stopped (${report.stopped}) before ${report.mode === 'traffic' ? 'the whole recording was read' : 'every request was sent'}\n`
      : skipped.length ? `${program}: run incomplete: ${skipped.length} ${skipped[0]!.level} check(s) not evaluated (${skipped[0]!.id}: ${skipped[0]!.message})\n`
        : `${program}: run incomplete: ${unsent ?? 0} account request(s) not sent (the request cap, --max-requests, was reached)\n`);
    return 2;
  }
  if (report.verdict === 'nothing-observed') {
    const seen = Object.values(report.counts.exchanges.kinds).reduce((n, k) => n + k, 0);
    const level = decidingChecks(report.checks, report.gate ?? 'must')[0]?.level ?? 'MUST';
    process.stderr.write(seen
      ? `${program}: nothing of this interface could be judged: its ${seen} exchange(s) gave no ${level} check anything to judge (${report.counts.exchanges.notInterfaceTotal} exchange(s) of other services)\n`
      : `${program}: nothing of this interface was observed (${report.counts.exchanges.notInterfaceTotal} exchange(s) of other services)\n`);
    return 2;
  }
  const code = exitCodeOf(report);
  if (report.verdict === 'conformant' && code === 2) {
    process.stderr.write(`${program}: nothing was compared with the legacy: it gave no answer to every request, or answered it two ways (${report.differential!.inconclusive} request(s))\n`);
  } else if (report.verdict === 'conformant' && code === 1) {
    process.stderr.write(`${program}: the candidate differs from the legacy beyond noise (${report.differential!.differences} differing value(s))\n`);
  }
  return code;
}
