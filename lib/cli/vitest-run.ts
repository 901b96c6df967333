// Presents a finished run through vitest: the suites of suites/ (one file per area, the same files
// `npx vitest run suites` runs) register one test per check from the injected report, and
// allure-vitest writes allure-results/ (junit.xml is written from the report itself:
// lib/reporting/junit.ts). Vitest's own console output is discarded; the CLI prints its summary.
import { constants, existsSync, writeFileSync } from 'node:fs';
import { copyFile, mkdir, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { childAhead, type ChildAhead } from '../child-ahead.js';
import type { PresentationInput, Presented } from './presentation.js';
import { PROJECT_ROOT as ROOT } from '../paths.js';
import { inRam, ramDir, ramHasRoomFor } from '../reporting/ram-place.js';
import { replaceDirectoryInBackground } from '../reporting/replace-file.js';
import { PRESENTING, releaseWorkDir, releaseWorkDirLater, sharedWorkDir, workDir } from '../reporting/work-dirs.js';
import { manifestOf, type Report } from '../reporting/report.js';
import { areaFile } from '../checks/check.js';
import { presentedReport } from '../reporting/presented-report.js';

/** What the presentation child is told beside the report: the suites of the areas this run has
 *  checks in (a file with no test fails) and the differential's, and Allure's environment view (the
 *  run manifest, flattened to name = value). Worked out here, so that the child loads none of the
 *  catalogue the report's module brings (some 0.08 s of its start). */
export function presentationInputs(report: Report): Pick<PresentationInput, 'suites' | 'environment'> {
  const suites = [...new Set(report.checks.map((c) => areaFile(c.area))), ...(report.differential ? ['differential'] : [])];
  return { suites, environment: environmentOf(report) };
}

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
  const work = sharedWorkDir(tmpdir(), 'presenting');
  const presented = presentedReport(report);
  const ram = !inRam(reportDir) && ramHasRoomFor(resultsBytes(presented));
  const staging = ram ? sharedWorkDir(ramDir(), 'presenting') : workDir(join(reportDir, PRESENTING));
  const input = join(work, 'report.json');
  let kept = false;
  try {
    writeFileSync(input, JSON.stringify(presented));
    const child = ahead ?? presentationChild();
    ahead = undefined;
    const line: PresentationInput = { input, dir: staging, ...presentationInputs(report) };
    const { code, stdout, stderr } = await child.run(JSON.stringify(line), 300_000);
    if (code !== 0) throw new Error((stderr.trim().split('\n').pop() || `exit code ${code}`).replace(/^present: /, ''));
    const out = JSON.parse(stdout) as Presented;
    const allureResults = join(reportDir, 'allure-results');
    // The previous run's results are removed while the HTML is built from these.
    if (!ram) return { ...out, allureResults, removed: replaceDirectoryInBackground(out.allureResults, allureResults).removed };
    kept = true;
    inRamResults.set(reportDir, out.allureResults);
    let removed: Promise<void> = Promise.resolve();
    const finishing = (async () => {
      const disk = workDir(join(reportDir, PRESENTING));
      try {
        await copyTree(out.allureResults, join(disk, 'allure-results'));
        ({ removed } = replaceDirectoryInBackground(join(disk, 'allure-results'), allureResults));
      } finally {
        if (inRamResults.get(reportDir) === out.allureResults) inRamResults.delete(reportDir);
        await Promise.all([releaseWorkDirLater(disk), releaseWorkDirLater(staging)]);
      }
    })();
    finishing.catch(() => undefined); // its failure is the caller's to say
    return { ...out, allureResults, finishing, removed: finishing.then(() => removed, () => undefined) };
  } finally {
    releaseWorkDir(work);
    if (!kept) releaseWorkDir(staging);
  }
}
