// report.html: Allure's single file, built from the allure-results just presented (whose writer put
// the spec its clause links point at beside it).
import { loadAllureAhead, writeHtmlReport } from '../../reporting/html.js';
import { reportTitle } from '../../reporting/report.js';
import { ramResultsOf } from '../vitest-run.js';
import type { ReportWriter } from './report-writer.js';

export const htmlWriter: ReportWriter = {
  name: 'html', what: 'report.html', slow: true, needs: 'allure',
  // Allure's CLI loads while the presentation writes the results it reads (about a second saved).
  prepare: () => { loadAllureAhead(); },
  // From the presentation's results in RAM while they are still being copied into `dir`.
  write: async (report, dir) => ({ files: await writeHtmlReport(dir, reportTitle(report), report, ramResultsOf(dir)) }),
};
