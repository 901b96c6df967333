// Judging a body of some megabytes leaves many times its size behind (its text, its tree, its
// canonical form, what redaction learned from it). V8 collects late, when its heap is still small
// next to what a run of such bodies piles up, so a run that judged them one after another reached
// several times the memory it ever held at once. Past LARGE_BODY_BYTES, the run collects as soon as
// it has dropped such a body.

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** A body this large is collected after as soon as it is dropped. */
export const LARGE_BODY_BYTES = 1024 * 1024;

let gc: (() => void) | null | undefined;

/** V8's collector, where it can be had (a flag set at run time; a new context's `gc`); else nothing. */
export function collectGarbage(): void {
  if (gc === undefined) {
    try {
      setFlagsFromString('--expose-gc');
      gc = runInNewContext('gc') as () => void;
    } catch {
      gc = null;
    }
  }
  gc?.();
}

/** Growth of V8's old generation past what survived its last full collection, in percent, for runs
 *  that stream many exchanges (--accounts). Left to itself V8 lets the old generation grow to up to
 *  four times its live size before collecting it; a run's live set is small (about 20 MB of objects
 *  and the fingerprint table) but almost everything it allocates is short-lived garbage promoted by
 *  the 32 exchanges in flight, so the old generation grew to 80-90 MB and the run's RSS with the number
 *  of accounts (measured at 10 000 accounts: 180-212 MB judging, 160 MB with 30%, at the same CPU). */
export const HEAP_GROWING_PERCENT = 30;

/** Runs whose exchanges stream past by the thousand, each dropped once judged: --accounts,
 *  --generate (its shrink contexts and examples are bounded too: left to V8, a run of 24 000 generated
 *  requests reached 323 MB of RSS against 248 MB at 6 000, its live set under 50 MB) and --har (a
 *  recorded URL of 9 MB, read by learning and by each report, took the run to 362 MB, its heap under
 *  80 MB after each full collection; capped, 275 MB). Their heap's growth is capped (boundHeapGrowth). */
export const streamsExchanges = (run: { readonly accounts?: unknown; readonly generate?: unknown; readonly har?: readonly unknown[] }): boolean =>
  !!(run.accounts || run.generate || run.har?.length);

/** Caps the old generation's growth (read by V8 at every full collection, so it holds from the next). */
export function boundHeapGrowth(percent = HEAP_GROWING_PERCENT): void {
  setFlagsFromString(`--heap-growing-percent=${percent}`);
}
