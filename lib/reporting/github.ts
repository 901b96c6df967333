// GitHub Actions: when GITHUB_ACTIONS is set, one ::error (MUST, or SHOULD under --fail-on should)
// or ::warning (advisory SHOULD) workflow command per distinct finding, and a Markdown job summary
// with the verdict and the failing checks. Built from the redacted report only.
import { markdownCell, markdownCode } from './display.js';
import type { Report, ReportedCheck } from './report.js';
import { verdictWords } from './verdict.js';
import { findingId } from './finding-id.js';

/** GitHub shows at most 10 annotations of a kind per step and 50 per job; past that, one notice. */
export const MAX_ANNOTATIONS = 50;

// Workflow-command escaping (actions/toolkit's command.ts): data escapes %, CR, LF; properties also : and ,.
const data = (s: string) => s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
const property = (s: string) => data(s).replace(/:/g, '%3A').replace(/,/g, '%2C');

const failing = (report: Report) => report.checks.filter((c) => c.status === 'fail');
const gated = (c: ReportedCheck, report: Report) => c.level === 'MUST' || report.gate === 'should';

/** The workflow commands, one line each (written to stdout with the console summary). */
export function githubAnnotations(report: Report): string[] {
  const lines: string[] = [];
  let left = 0;
  for (const c of failing(report).sort((a, b) => Number(gated(b, report)) - Number(gated(a, report)))) {
    const groups = c.groups.length ? c.groups : [{ message: c.message, count: c.counts.failed }];
    for (const g of groups) {
      if (lines.length >= MAX_ANNOTATIONS) { left++; continue; }
      const title = `${c.id} (${c.level}, interface.md ${c.clause})`;
      lines.push(`::${gated(c, report) ? 'error' : 'warning'} title=${property(title)}::${data(`${g.count} × ${g.path ? `${g.path}: ` : ''}${g.message} [finding ${findingId(c.id, g)}]`)}`);
    }
  }
  for (const p of report.differential?.paths ?? []) {
    if (lines.length >= MAX_ANNOTATIONS) { left++; continue; }
    lines.push(`::error title=${property(`differs from the legacy: ${p.operation} ${p.path}`)}::${data(`${p.differing} of ${p.compared} pairs (${p.rate})`)}`);
  }
  if (left) lines.push(`::notice title=more findings::${left} more distinct finding(s) are in summary.json and junit.xml`);
  return lines;
}

/** The job summary ($GITHUB_STEP_SUMMARY): the verdict, then the failing checks, gating ones first. */
export function githubStepSummary(report: Report): string {
  const checks = failing(report).sort((a, b) => Number(gated(b, report)) - Number(gated(a, report)));
  const { MUST, SHOULD } = report.counts;
  return [
    `## Conformance of ${markdownCode(report.target.baseUrl)}: ${verdictWords(report)}`,
    '',
    `MUST ${MUST.passed} passed, ${MUST.failed} failed, ${MUST.skipped} skipped; SHOULD ${SHOULD.passed} passed, ${SHOULD.failed} failed${report.gate === 'should' ? `, ${SHOULD.skipped} skipped (gated: --fail-on should)` : ' (advisory)'}.`,
    ...(report.differential ? [`Differences from the legacy: ${report.differential.differences} value(s) on ${report.differential.paths.length} path(s).`] : []),
    ...(checks.length ? [
      '',
      '| Check | Level | Clause | Exchanges with findings | First finding |',
      '|---|---|---|---|---|',
      ...checks.map((c) => `| ${c.id} | ${c.level}${gated(c, report) ? '' : ' (advisory)'} | ${c.clause} | ${c.counts.failed} of ${c.counts.judged} | ${markdownCell(c.message)} |`),
    ] : []),
    '',
  ].join('\n');
}
