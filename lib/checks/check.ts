// What a check is: a stable id, the clause it proves, a level, one sentence of requirement, and a
// pure function of the recorded exchanges that passes, fails with findings, or skips with a reason.
import type { Sensitivity } from '../contract/types.js';
import type { CheckContext } from './context.js';

/** MUST: the spec states it; a failure makes the target non-conformant.
 *  SHOULD: a convention the spec implies; reported, never part of the verdict. */
export type Level = 'MUST' | 'SHOULD';

export const AREAS = ['Routes', 'Format selection', 'SOAP envelope', 'SOAP record', 'JSON record'] as const;
export type Area = (typeof AREAS)[number];

export interface Finding {
  readonly exchange: string;
  /** $.enrollmentInfo.siteId, or /Envelope/Body/UserDetailsResponse/CreatedDate */
  readonly path?: string;
  /** One line: what is wrong here, expected versus actual. */
  readonly message: string;
  /** The offending value as received (reports redact it when the field is sensitive). */
  readonly actual?: string;
  readonly sensitivity?: Sensitivity;
}

export type Outcome =
  | { readonly status: 'pass'; readonly note?: string }
  | { readonly status: 'fail'; readonly findings: readonly Finding[]; readonly note?: string }
  | { readonly status: 'skip'; readonly reason: string };

export interface Check {
  readonly id: string;
  readonly title: string;
  readonly area: Area;
  /** Operation the check is about (request name), or "all operations". */
  readonly operation: string;
  /** Clause of interface.md, e.g. "4.1" or "2 Types". */
  readonly clause: string;
  readonly level: Level;
  /** One sentence: what the check requires. */
  readonly requirement: string;
  /** Where the spec is ambiguous: the reading this check applies. */
  readonly interpretation?: string;
  /** Exchange ids it reads. */
  readonly exchanges: readonly string[];
  run(ctx: CheckContext): Outcome;
}

/** What a rule states about itself; the builder that makes it a Check supplies the rest. */
export type RuleMeta = Pick<Check, 'id' | 'title' | 'clause' | 'requirement' | 'interpretation'> & { readonly level?: Level };

/** Per-exchange verdict of a check: findings (none = fine), or a reason it could not look. */
export type Look = readonly Finding[] | { readonly skip: string };

const isSkip = (l: Look): l is { readonly skip: string } => !Array.isArray(l);

/** Runs `look` on each exchange and combines: any finding fails; all skipped skips. An exchange
 *  the run never sent (its request cap) is skipped here, for every check alike. */
export function acrossExchanges(ctx: CheckContext, ids: readonly string[], look: (id: string) => Look): Outcome {
  const findings: Finding[] = [];
  const skipped: string[] = [];
  for (const id of ids) {
    const l = ctx.notSent(id) ? { skip: 'not sent (request cap reached)' } : look(id);
    if (isSkip(l)) skipped.push(`${id}: ${l.skip}`);
    else findings.push(...l);
  }
  if (skipped.length === ids.length) return { status: 'skip', reason: skipped.join('; ') };
  const note = skipped.length ? `not checked on ${skipped.join('; ')}` : undefined;
  if (findings.length) return { status: 'fail', findings, ...(note ? { note } : {}) };
  return { status: 'pass', ...(note ? { note } : {}) };
}

export const finding = (exchange: string, message: string, extra: Omit<Finding, 'exchange' | 'message'> = {}): Finding =>
  ({ exchange, message, ...extra });

/** A received value, quoted, on one line. Never shortened here: a cut could split a secret that
 *  redaction would otherwise recognise; the report shortens messages after redacting them. */
export const show = (value: unknown): string =>
  (value === undefined ? 'nothing' : JSON.stringify(value) ?? String(value));
