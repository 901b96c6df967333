// The clauses of interface.md, as its headings number them. Checks cite these; the traceability
// report lists every one, the testable and the "not shown". Their words are read from the spec the
// package ships (docs/spec/ is in its files), so the reports quote the one text there is.
import { readFileSync } from 'node:fs';
import { fromRoot } from '../paths.js';

export interface Clause {
  readonly id: string;
  readonly title: string;
  /** GitHub-style anchor of the heading in docs/spec/interface.md. */
  readonly anchor: string;
  /** The spec says "not shown": nothing there can be tested. */
  readonly notShown?: boolean;
}

const clause = (id: string, heading: string, notShown = false): Clause => ({
  id,
  title: heading,
  anchor: `${id.replace(/\./g, '')}-${heading}`.toLowerCase().replace(/[^a-z0-9 -]/g, '').replace(/ /g, '-'),
  ...(notShown ? { notShown } : {}),
});

export const CLAUSES: readonly Clause[] = [
  clause('1', 'What the service does'),
  clause('2', 'Resources and their fields'),
  clause('2.1', 'User-details record (response of SupportStateUserLoginRequest and ImpersonateLogoutRequest)'),
  clause('2.2', 'Request records'),
  clause('2.3', 'Confirmation record (response of ConfirmEmailRequest)'),
  clause('2.4', 'Gaps in the resource description', true),
  clause('3', 'States and transitions', true),
  clause('4', 'Endpoints'),
  clause('4.1', 'SupportStateUserLoginRequest'),
  clause('4.2', 'ImpersonateLogoutRequest (SOAP 1.1)'),
  clause('4.3', 'ConfirmEmailRequest'),
  clause('4.4', 'Gaps in the endpoint description', true),
  clause('5', 'Authentication', true),
  clause('6', 'Events', true),
  clause('7', 'Errors', true),
  clause('8', 'Limits', true),
  clause('9', 'Versioning', true),
];

/** "2 Types" and "4, 4.2" -> the clause ids they cite ("2", "4", "4.2"). */
export const citedClauses = (citation: string): string[] =>
  citation.split(',').map((c) => c.trim().split(' ')[0]!).filter((id) => CLAUSES.some((c) => c.id === id));

export const SPEC_PATH = 'docs/spec/interface.md';

let spec: string | undefined;
/** interface.md as the package ships it (read once). */
export const specText = (): string => (spec ??= readFileSync(fromRoot(SPEC_PATH), 'utf8'));

/** The clause's own words: the lines under its heading up to the next heading (so a section's
 *  text stops at its first subsection: "2" is the Types paragraph, not 2.1's record). */
export function clauseText(id: string): string {
  const c = CLAUSES.find((x) => x.id === id);
  if (!c) throw new Error(`interface.md has no clause ${id}`);
  const heading = `${c.id}${c.id.includes('.') ? '' : '.'} ${c.title}`;
  const lines = specText().split(/\r?\n/);
  const start = lines.findIndex((l) => /^#{2,3} /.test(l) && l.replace(/^#+ /, '') === heading);
  if (start < 0) throw new Error(`${SPEC_PATH} has no heading "${heading}"`);
  const next = lines.findIndex((l, i) => i > start && /^#{1,6} /.test(l));
  return lines.slice(start + 1, next < 0 ? lines.length : next).join('\n').trim();
}
