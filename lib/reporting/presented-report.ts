// The report as the presentation child receives it. An attachment shows at most EVIDENCE_CHARS of an
// exchange (suite.ts), so the child is given no more: a flood's kept 256 KiB, twenty times over, cost
// the child some 55 MB (the report crosses as JSON, is parsed, and is handed to vitest's worker).
// exchanges.json keeps all that was kept. Type-only imports: this runs in the run's process, and
// suite.ts (the child) reads its constants.
import type { Report } from './report.js';

/** What an attachment shows of an exchange that is a check's evidence: any record of the interface
 *  whole (a few KiB), a flood's first 16 KiB. */
export const EVIDENCE_CHARS = 16 * 1024;

/** `text` cut at EVIDENCE_CHARS, saying how much more exchanges.json holds. */
export const evidenceText = (id: string, text: string): string =>
  (text.length > EVIDENCE_CHARS ? `${text.slice(0, EVIDENCE_CHARS)}\n… (${text.length - EVIDENCE_CHARS} more characters: exchanges.json holds them, under ${id})` : text);

/** `report` with each exchange's request and response cut as an attachment shows them. */
export function presentedReport(report: Report): Report {
  return { ...report, exchanges: report.exchanges.map((e) => ({ ...e, request: evidenceText(e.id, e.request), response: evidenceText(e.id, e.response) })) };
}
