// summary.json: the report for machines, without the exchanges' texts.
import { join } from 'node:path';
import { replaceFile } from '../../reporting/replace-file.js';
import { summaryOf } from '../../reporting/report.js';
import type { ReportWriter } from './report-writer.js';

export const summaryWriter: ReportWriter = {
  name: 'summary', what: 'summary.json',
  write: (report, dir) => ({ files: [replaceFile(join(dir, 'summary.json'), `${JSON.stringify(summaryOf(report), null, 2)}\n`)] }),
};
