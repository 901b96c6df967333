// Shrinking a failure to the smallest input that still shows it: the pure core, no I/O. The caller
// supplies the trial, which sends a candidate and judges it again (the check run on the candidate's
// own answer); a candidate is taken only when its own trial fails. Nothing is ever inferred from the
// original's verdict: a failure that disappears on a smaller input leaves that input behind.
// Greedy, as fast-check's own runner shrinks: take the first candidate that fails, then shrink it in
// turn, until no candidate fails (a local minimum) or the budget of trials is spent.
import type fc from 'fast-check';

export interface Trial<R> {
  /** The candidate, judged on its own answer, fails the check. */
  readonly fails: boolean;
  /** What the trial produced (the exchange and the check's findings on it). */
  readonly result: R;
  /** Shrinking must stop here (e.g. the run's request cap): why. */
  readonly stop?: string;
}

export interface Shrunk<T, R> {
  /** The smallest failing value found: the start when no candidate failed. */
  readonly value: T;
  /** The trial of `value` itself; undefined when `value` is the start (its verdict is the run's). */
  readonly result?: R;
  /** Candidates taken (each failed on its own trial). */
  readonly steps: number;
  /** Candidates judged in all (a trial that stopped shrinking is not one). */
  readonly tried: number;
  /** Set when shrinking ended before a local minimum: why. */
  readonly stopped?: string;
}

/** Shrinks `start` (a value `arb` generated, with its context) while `trial` fails, at most `limit` trials. */
export async function shrink<T, R>(arb: fc.Arbitrary<T>, start: fc.Value<T>, trial: (value: T) => Promise<Trial<R>>, limit: number): Promise<Shrunk<T, R>> {
  let current = start;
  let result: R | undefined;
  let steps = 0;
  let tried = 0;
  const outcome = (stopped?: string): Shrunk<T, R> =>
    ({ value: current.value, ...(result !== undefined ? { result } : {}), steps, tried, ...(stopped ? { stopped } : {}) });
  for (;;) {
    let taken = false;
    for (const candidate of arb.shrink(current.value_, current.context)) {
      if (tried >= limit) return outcome(`the budget of ${limit} trials was spent`);
      const t = await trial(candidate.value);
      if (t.stop) return outcome(t.stop);
      tried++;
      if (t.fails) {
        current = candidate;
        result = t.result;
        steps++;
        taken = true;
        break;
      }
    }
    if (!taken) return outcome();
  }
}
