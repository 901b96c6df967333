// allure-vitest's reporter, with what an auditor does not need left out of every result: the host,
// thread, framework, language and package (test file) labels, the fallback test case id (a hash of
// the file's path), and the test file in the full name and title path; and each result's start set to
// its place in the tree's order (tree-order.ts). A check is filed by its labels (area, check, level, clause: check-tests.ts). The CLI's
// presentation uses it; so can a user's own vitest workspace (README: "Your own vitest workspace").
import AllureVitestReporter, { type AllureVitestReporterConfig } from 'allure-vitest/reporter';
import { Status, type TestResult } from 'allure-js-commons';
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

export default class AuditorReporter extends AllureVitestReporter {
  constructor(config: AllureVitestReporterConfig = {}) {
    super({ ...config, listeners: [...(config.listeners ?? []), { beforeTestResultWrite: auditorView }] });
  }
}
