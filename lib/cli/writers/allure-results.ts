// allure-results/: the vitest + allure-vitest presentation, in a child process (the slow writer). The
// report learns its time and peak memory. Its clause links point at the spec, written beside it.
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { specText } from '../../contract/clauses.js';
import { replaceFile } from '../../reporting/replace-file.js';
import { SPEC_COPY } from '../../reporting/traceability.js';
import { presentAhead, presentWithVitest } from '../vitest-run.js';
import type { ReportWriter } from './report-writer.js';

export const allureWriter: ReportWriter = {
  name: 'allure', what: 'the Allure results', slow: true,
  // The presentation child loads vitest while the run judges its last exchanges (about 0.4 s of a cold run).
  early: () => { presentAhead(); },
  async write(report, dir) {
    const t = performance.now();
    const { allureResults, peakRssBytes, removed, finishing } = await presentWithVitest(report, dir);
    return {
      files: [allureResults, replaceFile(join(dir, SPEC_COPY), specText())],
      removed,
      ...(finishing ? { finishing } : {}),
      report: {
        ...report,
        timings: { ...report.timings, presentingMs: Math.round(performance.now() - t) },
        peakRss: { ...report.peakRss, ...(peakRssBytes ? { presentationBytes: peakRssBytes } : {}) },
      },
    };
  },
};
