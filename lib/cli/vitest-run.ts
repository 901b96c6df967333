// Presents a finished run through vitest: the suites of suites/ (one file per area, the same files
// `npx vitest run suites` runs) register one test per check from the injected report, and
// allure-vitest writes allure-results/ (junit.xml is written from the report itself:
// lib/reporting/junit.ts). Vitest's own console output is discarded; the CLI prints its summary.
import { constants, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { copyFile, mkdir, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { Vitest } from 'vitest/node';
import { childAhead, type ChildAhead } from '../child-ahead.js';
import { PROJECT_ROOT as ROOT } from '../paths.js';

/** lib/cli/ -> the checkout's root; dist/lib/cli/ -> dist/. suites/ lies beneath it: TypeScript in a
 *  checkout run from source (vitest reads it itself), JavaScript compiled beside dist/lib. */
const PRESENTATION_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SUITES_EXT = import.meta.url.endsWith('.ts') ? 'ts' : 'js';
const suiteFile = (name: string) => `suites/${name}.suite.${SUITES_EXT}`;
import { inRam, RAM_DIR, ramHasRoomFor } from '../reporting/ram-place.js';
import { replaceDirectoryInBackground } from '../reporting/replace-file.js';
import { manifestOf, type Report } from '../reporting/report.js';
import { areaFile } from '../checks/check.js';
import { presentedReport } from '../reporting/presented-report.js';

/** Compiled, the harness modules the suites import (dist/lib, and the suites' own helpers beside
 *  the suite files) are plain JavaScript: Node loads them itself instead of vite transforming each
 *  one for its module runner (measured on the reference's run: the child's CPU 1.8 → 1.4 s, its
 *  peak RSS 218 → 140 MB; allure-results the same). From source they are TypeScript, which only the
 *  transform reads. */
const COMPILED_LIB = SUITES_EXT === 'js' ? { server: { deps: { external: [/\/dist\/(?:lib\/|suites\/(?!.*\.suite\.js$))/] } } } : {};

const discard = () => new Writable({ write: (_chunk, _enc, done) => done() });

/** Allure's environment view: the run manifest, flattened to name = value. */
function environmentOf(report: Report): Record<string, string> {
  const out: Record<string, string> = {};
  const flat = (prefix: string, v: unknown) => {
    if (v && typeof v === 'object' && !Array.isArray(v)) for (const [k, x] of Object.entries(v)) flat(prefix ? `${prefix}.${k}` : k, x);
    else out[prefix] = Array.isArray(v) ? v.join(', ') : String(v);
  };
  flat('', manifestOf(report));
  return out;
}

/** The presentation allocates in bursts of short-lived strings (every attachment is base64-encoded
 *  and passed between vitest's threads): a 2 MB semi-space, not V8's default 16, collects them
 *  sooner and keeps the child's peak RSS about 30 to 45 MB lower (measured: 197 against 218 to 228 MB
 *  on the reference's run, 235 against 269 to 283 MB on a flood's), at no time cost seen. */
const PRESENTATION_YOUNG_GENERATION = '--max-semi-space-size=2';

export interface Presented {
  readonly allureResults: string;
  /** Peak resident memory of the process that presented (a child of the run). */
  readonly peakRssBytes?: number;
}

/** The presentation child, started with its modules loading; `presentWithVitest` takes it. */
const presentationChild = (): ChildAhead => childAhead([PRESENTATION_YOUNG_GENERATION, join(ROOT, 'bin', 'run.mjs'), 'cli/present', '--ahead'], true);
let ahead: ChildAhead | undefined;

/** Starts the presentation child loading vitest now (about 0.4 s of a cold run's), for a
 *  presentWithVitest to come: the CLI calls it as a run begins that will write allure-results. */
export function presentAhead(): number | undefined {
  ahead ??= presentationChild();
  return ahead.pid;
}

/** The presentation's results in RAM, by report directory, while their copy is written into it:
 *  report.html is built from them meanwhile. */
const inRamResults = new Map<string, string>();

/** The results the last presentation into `reportDir` left in RAM, while they are there. */
export function ramResultsOf(reportDir: string): string | undefined {
  const path = inRamResults.get(reportDir);
  return path && existsSync(path) ? path : undefined;
}

/** At most what the presentation writes for `report` (its texts as UTF-8 in every check that attaches
 *  them, and some 64 KiB of each check's own): whether it fits in RAM. */
function resultsBytes(report: Report): number {
  const texts = new Map(report.exchanges.map((e) => [e.id, e.request.length + e.response.length + e.curl.length]));
  return report.checks.reduce((n, c) => n + 64 * 1024 + c.exchanges.reduce((m, id) => m + 3 * (texts.get(id) ?? 0), 0), 0);
}

/** Files copied at once into the report directory (libuv runs four at a time). */
const COPIES_AT_ONCE = 8;

/** Copies the tree `from` into `to` (made here; every file created anew), off the event loop. */
async function copyTree(from: string, to: string): Promise<void> {
  await mkdir(to);
  const entries = await readdir(from, { withFileTypes: true });
  let next = 0;
  const copier = async () => {
    for (let e = entries[next++]; e; e = entries[next++]) {
      if (e.isDirectory()) await copyTree(join(from, e.name), join(to, e.name));
      else if (e.isFile()) await copyFile(join(from, e.name), join(to, e.name), constants.COPYFILE_EXCL);
    }
  };
  await Promise.all(Array.from({ length: COPIES_AT_ONCE }, copier));
}

/**
 * Presents the report in a child process (`cli/present`): vitest and its reporters cost ~185 MB that
 * the run itself never needs, and in a process of their own they never add to the run's peak memory.
 * The report crosses as a JSON file in the temporary directory, removed after. Vitest's reporters
 * write into a fresh directory, and what they wrote is renamed into place in the report directory: a
 * path already there (a planted symlink) is replaced, never written through. That fresh directory is
 * in RAM when the report directory is on a disk and RAM has room: then the results are copied into
 * a fresh directory in the report directory while report.html is built from them (`finishing`
 * settles once they are in place, and rejects when they cannot be), not written file by file to the
 * disk while the run waits.
 */
export async function presentWithVitest(report: Report, reportDir: string): Promise<Presented & { readonly removed: Promise<void>; readonly finishing?: Promise<void> }> {
  const work = mkdtempSync(join(tmpdir(), 'conformance-present-'));
  const presented = presentedReport(report);
  const ram = !inRam(reportDir) && ramHasRoomFor(resultsBytes(presented));
  const staging = mkdtempSync(ram ? join(RAM_DIR, 'conformance-present-') : join(reportDir, '.presenting-'));
  const input = join(work, 'report.json');
  let kept = false;
  try {
    writeFileSync(input, JSON.stringify(presented));
    const child = ahead ?? presentationChild();
    ahead = undefined;
    const { code, stdout, stderr } = await child.run(JSON.stringify({ input, dir: staging }), 300_000);
    if (code !== 0) throw new Error((stderr.trim().split('\n').pop() || `exit code ${code}`).replace(/^present: /, ''));
    const out = JSON.parse(stdout) as Presented;
    const allureResults = join(reportDir, 'allure-results');
    // The previous run's results are removed while the HTML is built from these.
    if (!ram) return { ...out, allureResults, removed: replaceDirectoryInBackground(out.allureResults, allureResults).removed };
    kept = true;
    inRamResults.set(reportDir, out.allureResults);
    let removed: Promise<void> = Promise.resolve();
    const finishing = (async () => {
      const disk = mkdtempSync(join(reportDir, '.presenting-'));
      try {
        await copyTree(out.allureResults, join(disk, 'allure-results'));
        ({ removed } = replaceDirectoryInBackground(join(disk, 'allure-results'), allureResults));
      } finally {
        inRamResults.delete(reportDir);
        await Promise.all([rm(disk, { recursive: true, force: true }), rm(staging, { recursive: true, force: true })]);
      }
    })();
    finishing.catch(() => undefined); // its failure is the caller's to say
    return { ...out, allureResults, finishing, removed: finishing.then(() => removed, () => undefined) };
  } finally {
    rmSync(work, { recursive: true, force: true });
    if (!kept) rmSync(staging, { recursive: true, force: true });
  }
}

/** A vitest made before its report exists: the presentation child makes it while the run judges. */
export interface PreparedVitest {
  readonly vitest: Vitest;
}

/** Vitest, made with everything of a presentation but its report (which suite files run, what they
 *  are given, where the results go): its configuration resolved and its server made (about 0.2 s of
 *  a presentation on a quiet machine, 0.6 s on a loaded one) while the run still judges. Undefined
 *  when that fails: presentInProcess then makes it itself, and says why it cannot. */
export async function prepareVitest(): Promise<PreparedVitest | undefined> {
  try {
    return { vitest: await makeVitest(`suites/*.suite.${SUITES_EXT}`, {}) };
  } catch {
    return undefined;
  }
}

type AimedReporter = { aim(config: { resultsDir: string; environmentInfo: Record<string, string> }): void };

async function makeVitest(include: string | string[], reporterConfig: Record<string, unknown>): Promise<Vitest> {
  const { createVitest } = await import('vitest/node');
  // What startVitest sets before it makes one.
  process.env.TEST = 'true';
  process.env.VITEST = 'true';
  process.env.NODE_ENV ??= 'test';
  return createVitest('test', {
    config: false,
    root: PRESENTATION_ROOT,
    include: [include].flat(),
    watch: false,
    // Passing reporters replaces vitest's defaults: Allure only (without host, thread, framework or
    // file labels), nothing on the console. Aimed at a run's results before it starts (AimedReporter).
    reporters: [[join(PRESENTATION_ROOT, 'suites', `auditor-reporter.${SUITES_EXT}`), reporterConfig]],
    setupFiles: ['allure-vitest/setup'],
    // The tests only present verdicts already reached: one thread, no isolation, is the cheapest honest run.
    pool: 'threads',
    maxWorkers: 1,
    isolate: false,
    ...COMPILED_LIB,
  }, { logLevel: 'silent', cacheDir: join(ROOT, 'node_modules/.vite') }, { stdout: discard(), stderr: discard() });
}

/** The presentation itself, in this process (the child's work); with the vitest prepared ahead when
 *  there is one. */
export async function presentInProcess(report: Report, reportDir: string, prepared?: Promise<PreparedVitest | undefined>): Promise<Presented> {
  const allureResults = join(reportDir, 'allure-results');
  rmSync(allureResults, { recursive: true, force: true }); // results of one run only (a fresh directory when run by presentWithVitest)
  // The files of the areas this run has checks in (a file with no test fails), and the differential's.
  const files = [...new Set(report.checks.map((c) => suiteFile(areaFile(c.area)))), ...(report.differential ? [suiteFile('differential')] : [])];
  const aim = { resultsDir: allureResults, environmentInfo: environmentOf(report) };
  const ready = (await prepared)?.vitest;
  // Its reporter, made with it (Vitest's `reporters`, internal), aimed at this run's results; made
  // anew when there is none to aim.
  const auditor = (ready as { reporters?: unknown[] } | undefined)?.reporters?.find((r): r is AimedReporter => typeof (r as Partial<AimedReporter> | undefined)?.aim === 'function');
  auditor?.aim(aim);
  if (ready && !auditor) await ready.close();
  const vitest = ready && auditor ? ready : await makeVitest(files, aim);
  let failure: string | undefined;
  try {
    vitest.provide('conformance', report);
    try {
      await vitest.start(files.map((f) => join(PRESENTATION_ROOT, f)));
    } catch (e) {
      failure = (e as Error).message;
    }
    const tests = vitest.state.getFiles().flatMap((f) => [...collect(f)]).length;
    const errors = vitest.state.getUnhandledErrors();
    if (failure !== undefined || errors.length || tests < report.checks.length) {
      const first = errors[0] as { message?: string } | undefined;
      throw new Error(`the conformance suites did not run (${(failure ?? first?.message)?.split('\n')[0] ?? `${tests} of ${report.checks.length} checks presented`})`);
    }
  } finally {
    await vitest.close();
  }
  return { allureResults, peakRssBytes: process.resourceUsage().maxRSS * 1024 };
}

function* collect(task: { type: string; tasks?: unknown[] }): Generator<unknown> {
  if (task.type === 'test') yield task;
  for (const t of task.tasks ?? []) yield* collect(t as { type: string; tasks?: unknown[] });
}
