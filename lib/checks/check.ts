// What a check is: a stable id, the clause it proves, a level, one sentence of requirement, the kinds
// of exchange it judges, and a pure function of one exchange that finds nothing, finds something, or
// says why it could not look. A check reads everything it needs from the exchange it is given, so the
// same check judges probes, accounts, recordings, live traffic and generated inputs alike.
import type { Sensitivity } from '../contract/types.js';
import type { EvidenceSource } from '../http/exchange.js';
import type { ExchangeView } from './exchange-view.js';

export type { EvidenceSource };

/** MUST: the spec states it; a failure makes the target non-conformant.
 *  SHOULD: a convention the spec implies; reported, never part of the verdict. */
export type Level = 'MUST' | 'SHOULD';

export const AREAS = ['Routes', 'Format selection', 'SOAP envelope', 'SOAP record', 'JSON record', 'Robustness', 'Requests'] as const;
/** The file of suites/ that holds an area's tests: `suites/<this>.suite.ts`. */
export const areaFile = (area: string): string => area.toLowerCase().replace(/\s+/g, '-');
export type Area = (typeof AREAS)[number];

export interface Finding {
  /** $.enrollmentInfo.siteId, or /Envelope/Body/UserDetailsResponse/CreatedDate */
  readonly path?: string;
  /** One line: what is wrong here, expected versus actual. */
  readonly message: string;
  /** The offending value as received (reports redact it when the field is sensitive). */
  readonly actual?: string;
  readonly sensitivity?: Sensitivity;
}

/** A check's verdict on one exchange: findings (none = fine), or the reason it could not look. */
export type Look = readonly Finding[] | { readonly skip: string };

export const isSkip = (l: Look): l is { readonly skip: string } => !Array.isArray(l);

export interface Check {
  readonly id: string;
  readonly title: string;
  readonly area: Area;
  /** Operation the check is about (request name), or several. */
  readonly operation: string;
  /** Clause of interface.md, e.g. "4.1" or "2 Types". */
  readonly clause: string;
  readonly level: Level;
  /** One sentence: what the check requires. */
  readonly requirement: string;
  /** Where the spec is ambiguous: the reading this check applies. */
  readonly interpretation?: string;
  /** The kinds of exchange it judges, in words (for the catalogue and coverage). */
  readonly judges: string;
  /** Set when only a purpose-built request gives it evidence (ordinary clients rarely send one):
   *  what that request is. Traffic without one leaves the check "not observed". */
  readonly probe?: string;
  /** Set when only some sources of evidence can ever feed it (Robustness: generated requests;
   *  request checks: requests a client sent): the check is run only when the run has such a source,
   *  so a plain probe run is not padded with checks that could never judge anything. Unset: any. */
  readonly sources?: readonly EvidenceSource[];
  /** 'request': it judges what the client sent, not the answer (an unrecorded answer does not stop it).
   *  'head': it judges the answer's status line and header fields only, through ExchangeView.head()
   *  (an answer recorded without its body as sent, Exchange.answerHead, does not stop it). */
  readonly side?: 'request' | 'head';
  /** Whether this exchange is of a kind the check judges. */
  appliesTo(ex: ExchangeView): boolean;
  /** The check's verdict on one exchange of its kind. */
  judge(ex: ExchangeView): Look;
}

/** What a rule states about itself; the builder that makes it a Check supplies the rest. */
export type RuleMeta = Pick<Check, 'id' | 'title' | 'clause' | 'requirement' | 'interpretation'> & { readonly level?: Level };

export const finding = (message: string, extra: Omit<Finding, 'message'> = {}): Finding => ({ message, ...extra });

/** A received value, quoted, on one line: every received value a message names is quoted so. Never
 *  shortened here: a cut could split a secret that redaction would otherwise recognise; the report
 *  shortens messages after redacting them, each quoted value before the end (shownMessage). */
export const show = (value: unknown): string =>
  (value === undefined ? 'nothing' : JSON.stringify(value) ?? String(value));
