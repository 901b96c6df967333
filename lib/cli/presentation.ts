// The presentation child's work (`cli/present`, in a process of its own: vitest-run.ts starts it):
// vitest runs the suites of suites/ on a finished report, and allure-vitest writes allure-results.
// It loads what that needs and no more (not the report's module, which brings the whole catalogue):
// what is worked out from the report comes with it (vitest-run.ts presentationInputs).
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { Vitest } from 'vitest/node';
import { PROJECT_ROOT as ROOT } from '../paths.js';
import type { Report } from '../reporting/report.js';
import { peakRssBytes } from '../peak-rss.js';

/** lib/cli/ -> the checkout's root; dist/lib/cli/ -> dist/. suites/ lies beneath it: TypeScript in a
 *  checkout run from source (vitest reads it itself), JavaScript compiled beside dist/lib. */
const PRESENTATION_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SUITES_EXT = import.meta.url.endsWith('.ts') ? 'ts' : 'js';
const suiteFile = (name: string) => `suites/${name}.suite.${SUITES_EXT}`;

/** Compiled, the harness modules the suites import (dist/lib, and the suites' own helpers beside
 *  the suite files) are plain JavaScript: Node loads them itself instead of vite transforming each
 *  one for its module runner (measured on the reference's run: the child's CPU 1.8 → 1.4 s, its
 *  peak RSS 218 → 140 MB; allure-results the same). From source they are TypeScript, which only the
 *  transform reads. */
const COMPILED_LIB = SUITES_EXT === 'js' ? { server: { deps: { external: [/\/dist\/(?:lib\/|suites\/(?!.*\.suite\.js$))/] } } } : {};

const discard = () => new Writable({ write: (_chunk, _enc, done) => done() });

/** What the child is given on stdin (the report itself in the file `input`). */
export interface PresentationInput {
  readonly input: string;
  /** Where allure-results is written (a fresh directory). */
  readonly dir: string;
  /** The suites to run, by name (`routes` for suites/routes.suite.*): the child knows whether its
   *  suite files are compiled (a run from source may start a compiled child). */
  readonly suites: readonly string[];
  /** Allure's environment view. */
  readonly environment: Record<string, string>;
}

export interface Presented {
  readonly allureResults: string;
  /** Peak resident memory of the process that presented (a child of the run). */
  readonly peakRssBytes?: number;
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
export async function presentInProcess(report: Report, reportDir: string, given: Pick<PresentationInput, 'suites' | 'environment'>, prepared?: Promise<PreparedVitest | undefined>): Promise<Presented> {
  const allureResults = join(reportDir, 'allure-results');
  rmSync(allureResults, { recursive: true, force: true }); // results of one run only (a fresh directory when run by presentWithVitest)
  const files = given.suites.map(suiteFile);
  const aim = { resultsDir: allureResults, environmentInfo: given.environment };
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
  return { allureResults, peakRssBytes: peakRssBytes() };
}

function* collect(task: { type: string; tasks?: unknown[] }): Generator<unknown> {
  if (task.type === 'test') yield task;
  for (const t of task.tasks ?? []) yield* collect(t as { type: string; tasks?: unknown[] });
}
