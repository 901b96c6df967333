// The console's account of a run: counts per area, each failed check with its message and
// evidence, the verdict, where the reports are. Built from the redacted report only.
import { cutShort } from '../checks/verdict-rule.js';
import { AREAS } from '../checks/check.js';
import { coverageLines, coverageOf } from './coverage.js';
import type { Report, ReportedCheck } from './report.js';
import { decidingChecks, judgesSides, sidesWords, verdictWords } from './verdict.js';
import { differentialLines } from './differential.js';
import { consoleText, shownValue } from './display.js';

const sourceWords: Record<string, string> = { probe: 'probes', case: 'account requests', har: 'recorded exchanges', proxy: 'proxied exchanges', generated: 'generated requests', client: 'client requests' };

/** A replay command longer than this is not printed (one finding's line stays readable). */
const MAX_REPLAY = 600;

/** A command is printed when it is one line that a console shows as it is (consoleText changes
 *  nothing): a body's line feed would start a console line with the recorder's text, and a changed
 *  command would send other bytes. Otherwise, where it is whole. */
const shownCommand = (command: string, where: string): string =>
  (command.length <= MAX_REPLAY && !command.includes('\n') && consoleText(command) === command ? command
    : `a ${command.length}-character command${command.includes('\n') ? ` of ${command.split('\n').length} lines` : ''}, whole in ${where}`);

function failure(c: ReportedCheck): string[] {
  const lines = [`  ✗ ${c.id} [${c.level}, ${c.clause}] ${c.message}`];
  // Beyond the probes, the shape of the failures matters more than the first one.
  if (c.counts.judged > c.exchanges.length) for (const g of c.groups.slice(0, 3)) lines.push(`      ${g.count} × ${g.path ? `${g.path}: ` : ''}${g.message}`);
  const ev = c.evidence[0];
  // Already display-safe (report boundary): quoted, not re-escaped.
  if (ev?.actual !== undefined) lines.push(`      got "${ev.actual}"${ev.path ? ` at ${ev.path}` : ''}`);
  if (c.shrunk) lines.push(...shrunkLines(c.shrunk));
  // The command that sends its first finding's request again (a cut command would send other bytes).
  else if (c.replay) lines.push(`      replay: ${shownCommand(c.replay, 'replay.sh and summary.json (checks[].replay)')}`);
  return lines;
}

/** A shrunk failure: the smallest request that still fails, what the check found on it, how to send it again. */
function shrunkLines(s: NonNullable<ReportedCheck['shrunk']>): string[] {
  const [requestLine = '', ...rest] = s.request.split('\n');
  const body = rest.slice(rest.indexOf('') + 1).join('\n').replace(/\n\s*/g, ' ');
  const how = s.steps ? `shrunk from ${s.from} in ${s.steps} step(s), ${s.tried} request(s) sent` : `${s.from}; no smaller request failed (${s.tried} tried)`;
  const f = s.findings[0];
  return [
    `      smallest failing request (${how}${s.stopped ? `; stopped: ${s.stopped}` : ''}):`,
    `        ${requestLine}${body ? ` ${shownValue(body, 300)}` : ''}`,
    ...(f ? [`        re-judged: ${f.path && /^[$/]/.test(f.path) ? `${f.path}: ` : ''}${f.message}`] : []),
    `        replay: ${shownCommand(s.curl, 'summary.json (checks[].shrunk.curl)')}`,
    `        or the run: --seed ${s.seed}`,
  ];
}

/** Everything up to the verdict line: printed as soon as the fast reports are written. */
export function verdictSummary(report: Report): string {
  const lines: string[] = report.warnings.map((w) => `  ! ${w}`);
  for (const area of AREAS) {
    const t = report.counts.byArea[area];
    if (!t || t.passed + t.failed + t.skipped === 0) continue;
    const parts = [`${t.passed} passed`, t.failed ? `${t.failed} failed` : '', t.skipped ? `${t.skipped} skipped` : ''].filter(Boolean);
    lines.push(`  ${area.padEnd(18)} ${parts.join(', ')}`);
  }
  if (report.mode === 'traffic') for (const l of coverageLines(coverageOf(report))) lines.push(l);
  const must = report.checks.filter((c) => c.status === 'fail' && c.level === 'MUST');
  const should = report.checks.filter((c) => c.status === 'fail' && c.level === 'SHOULD');
  if (must.length) lines.push('', `Failed MUST checks (${must.length}):`, ...must.flatMap(failure));
  if (should.length) {
    lines.push('', report.gate === 'should' ? `Failed SHOULD checks (${should.length}, part of the verdict: --fail-on should):` : `Advisory SHOULD findings (${should.length}, not part of the verdict):`, ...should.flatMap(failure));
  }
  const { MUST, SHOULD, exchanges } = report.counts;
  const sources = Object.entries(exchanges.bySource).map(([k, n]) => `${n} ${sourceWords[k] ?? k}${exchanges.notSent?.[k] ? `, of which ${exchanges.notSent[k]} not sent` : ''}`).join(', ');
  lines.push('', `Judged ${exchanges.exchanges} exchange${exchanges.exchanges === 1 ? '' : 's'} (${sources || 'none'})${exchanges.cases ? ` of ${exchanges.cases} accounts` : ''}.`);
  const g = report.generation;
  if (g) lines.push(`Generated ${g.count} requests per operation from seed ${g.seed} (--generate ${g.count} --seed ${g.seed} sends them again); shrinking sent ${g.shrinkRequests} more.`);
  if (report.differential) lines.push(...differentialLines(report.differential, report.verdict === 'unreachable'));
  const gate = report.gate ?? 'must';
  const level = decidingChecks(report.checks, gate)[0]?.level ?? 'MUST';
  // Gated, the SHOULD checks not evaluated are part of the verdict (INCOMPLETE when they decide it).
  lines.push('', `Verdict: ${verdictWords(report)} (${judgesSides(report) ? `judged: ${sidesWords(report.checks, gate, cutShort(report))}; ` : ''}${report.verdict === 'incomplete' ? report.inProgress ? `no ${level} check failed so far, the run going on; ` : report.stopped ? `no ${level} check failed before the run was stopped (${report.stopped}); ` : `no ${level} check failed, but some could not be evaluated; ` : ''}MUST ${MUST.passed} passed, ${MUST.failed} failed, ${MUST.skipped} skipped; SHOULD ${SHOULD.passed} passed, ${SHOULD.failed} failed${gate === 'should' ? `, ${SHOULD.skipped} skipped` : ''})`);
  return consoleText(`${lines.join('\n')}\n`);
}

/** What follows the verdict once every report is written: where they are, and the warnings again. */
export function closingLines(report: Report, outputs: readonly string[]): string {
  const lines = [...(outputs.length ? [`Reports: ${outputs.join(', ')}`] : []), ...report.warnings.map((w) => `Warning: ${w}`)];
  return lines.length ? consoleText(`${lines.join('\n')}\n`) : '';
}

export const consoleSummary = (report: Report, outputs: readonly string[]): string => verdictSummary(report) + closingLines(report, outputs);
