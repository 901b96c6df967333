// exchanges.json: the kept exchanges' redacted texts, which summary.json leaves out; a rebuild or a
// merge needs them.
import { join } from 'node:path';
import { replaceFile } from '../../reporting/replace-file.js';
import type { ReportWriter } from './report-writer.js';

export const EXCHANGES_FILE = 'exchanges.json';

export const exchangesWriter: ReportWriter = {
  name: 'exchanges', what: 'exchanges.json', partOf: 'summary',
  write: (report, dir) => ({ files: [replaceFile(join(dir, EXCHANGES_FILE), `${JSON.stringify(report.exchanges)}\n`)] }),
};
