// The one verdict rule, here rather than in the engine that applies it: the reports reach it again
// (a merge, a run gated on SHOULD checks), and what the presentation child loads stays without the
// engine (test/presentation-imports.test.ts).

/** conformant: every MUST check passed. incomplete: none failed but some could not be evaluated.
 *  nothing-observed: a traffic run held no exchange of this interface. */
export type Verdict = 'conformant' | 'non-conformant' | 'incomplete' | 'unreachable' | 'nothing-observed';

/** A run cut short: stopped, or still going when written (a live run's in-progress reports). What it
 *  has not yet seen may be anything; every verdict of it (the run's, a rebuild's, a merge's, each
 *  side's of traffic) reads this, never one of the two alone. */
export const cutShort = (r: { readonly stopped?: string | undefined; readonly inProgress?: boolean | undefined }): boolean => r.stopped !== undefined || r.inProgress === true;

/** The one verdict rule, for a run and for merged parts alike. A MUST check without evidence makes a
 *  probe run incomplete (the harness should have made the evidence); traffic only says what it saw.
 *  So does an account whose requests were not sent: the run was asked about every account. A part
 *  (a shard) leaves its checks without evidence to the merge, but one that judged none of them has
 *  no verdict of its own to give: incomplete too, never conformant of nothing judged. */
export function verdictOf(v: { readonly unreachable: boolean; readonly mode: 'probe' | 'traffic'; readonly interfaceSeen: boolean; readonly mustFailed: boolean; readonly mustSkipped: boolean; readonly mustJudged: boolean; readonly casesNotSent?: boolean; readonly stopped?: boolean; readonly part?: boolean }): Verdict {
  const unjudged = v.part === true ? !v.mustJudged : v.mustSkipped;
  // Traffic that reached the interface but gave no MUST check anything to judge (a GET answered
  // 405, an entry without a body) proves nothing: it is not a conformant deployment.
  // Stopped, what was not yet seen may be anything: incomplete, unless a MUST check failed already.
  return v.unreachable ? 'unreachable'
    : v.mode === 'traffic' && (!v.interfaceSeen || !v.mustJudged) ? (v.stopped === true ? 'incomplete' : 'nothing-observed')
      : v.mustFailed ? 'non-conformant'
        : v.stopped === true || (v.mode === 'probe' && (unjudged || v.casesNotSent === true)) ? 'incomplete' : 'conformant';
}
