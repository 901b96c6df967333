// What a traffic run proves and what it does not (issue 13): the kinds of exchange observed, the
// checks that had evidence, and those that had none with what each would need. An auditor reads at
// a glance how far a verdict over recorded or live traffic reaches. Computed from the report alone,
// so a rebuilt or merged report has it too.
import type { Report } from './report.js';

export interface Coverage {
  /** Exchanges of this interface by kind (operation, route form, selector, JSONP). */
  readonly kinds: Readonly<Record<string, number>>;
  /** Exchanges of other services, counted, never judged. */
  readonly notInterface: number;
  /** Checks that judged at least one exchange. */
  readonly evidenced: readonly string[];
  /** Checks that judged none, with the kind of exchange that would feed them. */
  readonly withoutEvidence: readonly { readonly id: string; readonly level: string; readonly needs: string }[];
}

export function coverageOf(report: Report): Coverage {
  const evidenced = report.checks.filter((c) => c.counts.judged > 0);
  return {
    kinds: report.counts.exchanges.kinds,
    notInterface: report.counts.exchanges.notInterfaceTotal,
    evidenced: evidenced.map((c) => c.id),
    withoutEvidence: report.checks.filter((c) => c.counts.judged === 0).map((c) => ({ id: c.id, level: c.level, needs: c.probe ?? c.judges })),
  };
}

/** The console's lines: kinds seen, and how many checks had evidence (traceability.md lists the rest with what each needs). */
export function coverageLines(c: Coverage): string[] {
  const kinds = Object.entries(c.kinds).map(([k, n]) => `${k} ×${n}`);
  const without = c.withoutEvidence.map((w) => w.id);
  return [
    `  Observed: ${kinds.length} kind(s) of exchange${kinds.length ? `: ${kinds.join(', ')}` : ''}${c.notInterface ? `; ${c.notInterface} exchange(s) of other services` : ''}`,
    `  Checks with evidence: ${c.evidenced.length} of ${c.evidenced.length + without.length}` +
      (without.length ? `; none for ${without.slice(0, 8).join(', ')}${without.length > 8 ? ` and ${without.length - 8} more` : ''} (traceability.md says what each needs)` : ''),
  ];
}

/** traceability.md's section: every kind observed, every check without evidence and what would feed it. */
export function coverageMarkdown(c: Coverage, code: (s: string) => string): string[] {
  return [
    '## What this traffic proves',
    '',
    'A verdict over traffic is about what was observed. Kinds of exchange observed:',
    '',
    '| Kind | Exchanges |',
    '|---|---|',
    ...Object.entries(c.kinds).map(([k, n]) => `| ${code(k)} | ${n} |`),
    ...(c.notInterface ? ['', `Exchanges of other services (counted, never judged): ${c.notInterface}.`] : []),
    '',
    `Checks with evidence: ${c.evidenced.length}. Checks without any (not observed in this traffic; the verdict says nothing of their rules): ${c.withoutEvidence.length}.`,
    '',
    ...(c.withoutEvidence.length ? ['| Check | Level | Needs |', '|---|---|---|', ...c.withoutEvidence.map((w) => `| \`${w.id}\` | ${w.level} | ${w.needs} |`), ''] : []),
  ];
}
