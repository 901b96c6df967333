// Traceability: every clause of interface.md -> the checks that prove it -> their status this
// run. Clauses the spec leaves "not shown" are listed as not testable, so coverage is visibly
// complete rather than assumed.
import { CATALOGUE } from '../checks/catalogue.js';
import { CLAUSES, citedClauses, clauseText, type Clause } from '../contract/clauses.js';
import { coverageMarkdown, coverageOf } from './coverage.js';
import { markdownBlock, markdownCell, markdownCode } from './display.js';
import type { Report, ReportedCheck } from './report.js';
import { verdictWords } from './verdict.js';

/** The copy of interface.md every report directory holds, under this name: the links of
 *  traceability.md and report.html point at it, so they resolve wherever the directory is moved
 *  (a CI artefact, an archive), with no checkout of the harness beside it. */
export const SPEC_COPY = 'interface.md';

/** Where a clause's heading is, from a file in the report directory. */
export const clauseLink = (c: Clause): string => `${SPEC_COPY}#${c.anchor}`;

/** A clause's own words, quoted as inert Markdown (a code block: the spec's tables, backticks and
 *  placeholders stay text). */
export const quotedClause = (c: Clause): string => markdownBlock(clauseText(c.id));

/** What a clause with no check of its own is, and why. */
const WITHOUT_CHECKS: Readonly<Record<string, string>> = {
  '1': 'Covered through its operations: every check of 4.1, 4.2 and 4.3 exercises one of the three.',
};

const STATUS = { pass: 'passed', fail: 'FAILED', skip: 'not evaluated' } as const;

/** Under --fail-on should a failed SHOULD check fails its clause, as it fails the run. */
function clauseVerdict(checks: readonly ReportedCheck[], gate: Report['gate']): string {
  const must = checks.filter((c) => c.level === 'MUST');
  if (checks.some((c) => c.status === 'fail' && (c.level === 'MUST' || gate === 'should'))) return 'NOT MET';
  if (must.some((c) => c.status === 'skip')) return 'not fully evaluated';
  if (!must.length) return checks.some((c) => c.status === 'fail') ? 'advisory findings only' : 'advisory checks only';
  return 'met';
}

/** Checks any run can feed; the others join only when the run has their source (generated requests, client traffic). */
const GENERAL = CATALOGUE.filter((c) => !c.sources);

export function traceabilityMarkdown(report: Report): string {
  const filteredOut = GENERAL.filter((c) => !report.checks.some((r) => r.id === c.id));
  const lines = [
    `# Traceability: ${markdownCode(report.target.baseUrl)}`, // a code span: the target's URL never becomes a link
    '',
    `Verdict **${verdictWords(report)}**, run ${report.startedAt} to ${report.finishedAt}, harness ${report.harness.version}` +
      `${report.harness.commit ? ` (${report.harness.commit.slice(0, 12)})` : ''}, catalogue ${report.catalogueHash}.`,
    `Every clause of [interface.md](${SPEC_COPY}) (the spec, copied beside this file), the checks that prove it, and their status in this run.`,
    'Each clause\'s own words are quoted below the table.',
    report.gate === 'should' ? 'A clause is met when all its MUST checks passed and none of its SHOULD checks failed (--fail-on should: they are part of the verdict).'
      : 'A clause is met when all its MUST checks passed; SHOULD checks are advisory.',
    ...(report.generation
      ? ['', `**Generated requests:** ${report.generation.count} per operation from seed ${report.generation.seed} (\`--generate ${report.generation.count} --seed ${report.generation.seed}\` sends them again).`]
      : []),
    ...(filteredOut.length
      ? ['', `**Filtered run:** ${filteredOut.length} of the ${GENERAL.length} checks every run can feed were left out (--only / --skip). A clause whose checks were all left out is marked "not selected": nothing was judged there.`]
      : []),
    '',
    '| Clause | Title | Clause status | Checks |',
    '|---|---|---|---|',
  ];
  for (const clause of CLAUSES) {
    const checks = report.checks.filter((c) => citedClauses(c.clause).includes(clause.id));
    const list = checks.map((c) => `\`${c.id}\` ${c.level} ${STATUS[c.status]}`).join('<br>');
    const ofClause = CATALOGUE.filter((c) => citedClauses(c.clause).includes(clause.id));
    // A clause whose checks need a source this run did not have (client traffic, generated requests) was not fed, not deselected.
    const status = checks.length ? clauseVerdict(checks, report.gate)
      : ofClause.length && ofClause.every((c) => c.sources) ? `not judged in this run: needs ${[...new Set(ofClause.flatMap((c) => c.sources!))].join(', ')} evidence`
      : ofClause.length ? 'not selected in this run'
        : clause.notShown ? 'not testable: the spec says "not shown"'
          : WITHOUT_CHECKS[clause.id] ?? 'no check';
    lines.push(`| ${clause.id} | ${clause.title} | ${status} | ${list || '—'} |`);
  }
  const uncited = report.checks.filter((c) => !citedClauses(c.clause).length).map((c) => c.id);
  lines.push('', uncited.length ? `Checks citing no clause: ${uncited.join(', ')}.` : 'Every check cites at least one clause.', '');
  // One at a time: a spread of a recording's many kinds overflowed the stack.
  if (report.mode === 'traffic') for (const l of coverageMarkdown(coverageOf(report), markdownCell)) lines.push(l);
  lines.push('## The clauses in the spec\'s words', '');
  for (const clause of CLAUSES) lines.push(`### ${clause.id} ${clause.title}`, '', `[interface.md ${clause.id}](${clauseLink(clause)})`, '', quotedClause(clause), '');
  return lines.join('\n');
}
