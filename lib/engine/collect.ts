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
