// junit.xml, from the report itself (no presentation child).
import { join } from 'node:path';
import { junitXml } from '../../reporting/junit.js';
import { replaceFile } from '../../reporting/replace-file.js';
import type { ReportWriter } from './report-writer.js';

export const junitWriter: ReportWriter = {
  name: 'junit', what: 'junit.xml',
  write: (report, dir) => ({ files: [replaceFile(join(dir, 'junit.xml'), junitXml(report))] }),
};
