// traceability.md, and the spec its clause links point at, beside it.
import { join } from 'node:path';
import { specText } from '../../contract/clauses.js';
import { replaceFile } from '../../reporting/replace-file.js';
import { SPEC_COPY, traceabilityMarkdown } from '../../reporting/traceability.js';
import type { ReportWriter } from './report-writer.js';

export const traceabilityWriter: ReportWriter = {
  name: 'traceability', what: 'traceability.md',
  write: (report, dir) => ({ files: [replaceFile(join(dir, 'traceability.md'), traceabilityMarkdown(report)), replaceFile(join(dir, SPEC_COPY), specText())] }),
};
