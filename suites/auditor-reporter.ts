// allure-vitest's reporter, with what an auditor does not need left out of every result: the host,
// thread, framework, language and package (test file) labels, the fallback test case id (a hash of
// the file's path), and the test file in the full name and title path; and each result's start set to
// its place in the tree's order (tree-order.ts). A check is filed by its labels (area, check, level, clause: check-tests.ts). The CLI's
// presentation uses it; so can a user's own vitest workspace (README: "Your own vitest workspace").
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import AllureVitestReporter, { type AllureVitestReporterConfig } from 'allure-vitest/reporter';
import { Status, type TestResult } from 'allure-js-commons';
import { stringifyEnvInfo, type Writer } from 'allure-js-commons/sdk/reporter';
import type { Vitest } from 'vitest/node';
import { PLACED_AT, SHOULD_NOT_MET } from './labels.js';

const NOISE = new Set(['host', 'thread', 'framework', 'language', 'package', '_fallbackTestCaseId']);

/** A result as the auditor sees it: no machine or file in its labels or names. */
export function auditorView(result: TestResult): void {
  // A failed SHOULD check whose test passed (the run gates on MUST): failed in Allure, as the check is.
  const shouldNotMet = result.labels.find((l) => l.name === SHOULD_NOT_MET)?.value;
  if (shouldNotMet !== undefined) {
    result.status = Status.FAILED;
    result.statusDetails = { ...result.statusDetails, message: shouldNotMet };
  }
  // Its place in the tree's order (tree-order.ts): Allure orders the tree by start times alone.
  const placedAt = Number(result.labels.find((l) => l.name === PLACED_AT)?.value);
  if (Number.isSafeInteger(placedAt)) {
    const took = result.start !== undefined && result.stop !== undefined ? Math.max(0, result.stop - result.start) : 0;
    result.start = placedAt;
    result.stop = placedAt + took;
  }
  result.labels = result.labels.filter((l) => !NOISE.has(l.name) && l.name !== SHOULD_NOT_MET && l.name !== PLACED_AT);
  const area = result.labels.find((l) => l.name === 'area')?.value;
  result.titlePath = area ? [area] : [];
  result.fullName = area ? `${area}: ${result.name}` : result.name;
}

/** allure-results as plain files. Allure's own writer fsyncs every file before renaming it into
 *  place: a hundred fsyncs a run, 0.85 s of the presentation child's 2.9 s on a quiet machine and
 *  more on a busy disk. The CLI's presentation writes into a fresh directory that it renames into
 *  place whole (lib/cli/vitest-run.ts); a report does not need each file on disk before the next. */
export class PlainResultsWriter implements Writer {
  private made = false;
  constructor(private readonly dir: string) {}
  /** Where a file goes; the directory made at the first file (a run that writes none makes none). */
  private path(name: string): string {
    if (!this.made) { mkdirSync(this.dir, { recursive: true }); this.made = true; }
    return join(this.dir, name);
  }
  writeResult(result: Parameters<Writer['writeResult']>[0]): void { writeFileSync(this.path(`${result.uuid}-result.json`), JSON.stringify(result)); }
  writeGroup(result: Parameters<Writer['writeGroup']>[0]): void { writeFileSync(this.path(`${result.uuid}-container.json`), JSON.stringify(result)); }
  writeAttachment(name: string, content: Buffer): void { writeFileSync(this.path(name), content); }
  writeAttachmentFromPath(name: string, from: string): void { copyFileSync(from, this.path(name)); }
  writeEnvironmentInfo(info: Parameters<Writer['writeEnvironmentInfo']>[0]): void { writeFileSync(this.path('environment.properties'), stringifyEnvInfo(info)); }
  writeCategoriesDefinitions(categories: Parameters<Writer['writeCategoriesDefinitions']>[0]): void { writeFileSync(this.path('categories.json'), JSON.stringify(categories)); }
  writeGlobals(name: string, info: Parameters<Writer['writeGlobals']>[1]): void { writeFileSync(this.path(name), JSON.stringify(info)); }
}

export default class AuditorReporter extends AllureVitestReporter {
  private resultsDir: string;

  constructor(config: AllureVitestReporterConfig = {}) {
    super({ ...config, listeners: [...(config.listeners ?? []), { beforeTestResultWrite: auditorView }] });
    this.resultsDir = config.resultsDir ?? './allure-results'; // allure-js-commons' default
  }

  /** Where the results go and the environment they name, for a reporter made before they were known
   *  (the CLI's presentation makes its vitest while the run still judges); before its run starts. */
  aim(config: Pick<AllureVitestReporterConfig, 'resultsDir' | 'environmentInfo'>): void {
    const self = this as unknown as { config: AllureVitestReporterConfig };
    self.config = { ...self.config, ...config };
    this.resultsDir = config.resultsDir ?? this.resultsDir;
  }

  override onInit(vitest: Vitest): void {
    super.onInit(vitest);
    // allure-vitest makes its runtime's writer itself, with no option to give another: replaced here.
    const runtime = (this as unknown as { allureReporterRuntime?: { writer: Writer } }).allureReporterRuntime;
    if (runtime) runtime.writer = new PlainResultsWriter(this.resultsDir);
  }
}
