// How long a thread slept (not runnable) between two moments, as against the wall time between them:
// on a CPU-starved machine a thread waits for the CPU long after its event came, and a wait that
// ended at once looks long by the wall clock. Linux counts per thread, in /proc/<tid>/schedstat, the
// ns it ran on a CPU and the ns it waited on a run queue; the rest of the wall time it slept. (Its
// CPU figure is brought up to date at each tick and switch: a sleep reads up to a tick off.)
import { closeSync, openSync, readSync } from 'node:fs';

/** One thread's busy clock: `busyMs()` is the ms it has run or waited to run (NaN if it cannot be
 *  read, or once closed; only differences mean anything); `close()` lets the clock go. */
export interface ThreadBusy {
  busyMs(): number;
  close(): void;
}

/** The calling thread's busy clock (one pread of a kept descriptor each: about 2 µs), or undefined
 *  where it cannot be read (not Linux, no /proc, no schedstats). */
export function threadBusy(path = '/proc/thread-self/schedstat'): ThreadBusy | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return undefined;
  }
  let open = true;
  const buf = Buffer.alloc(96);
  const busyMs = () => {
    if (!open) return NaN;
    let n: number;
    try { n = readSync(fd, buf, 0, buf.length, 0); } catch { return NaN; }
    // "<ns on a CPU> <ns waiting on a run queue> <timeslices>": the first two summed, no string made.
    let sum = 0;
    let field = 0;
    let digits = 0;
    for (let i = 0, fields = 0; i < n; i++) {
      const c = buf[i]!;
      if (c >= 48 && c <= 57) { field = field * 10 + c - 48; digits++; continue; }
      if (!digits) return NaN;
      sum += field;
      field = digits = 0;
      if (++fields === 2) return sum / 1e6;
    }
    return NaN;
  };
  if (Number.isNaN(busyMs())) { closeSync(fd); return undefined; }
  // Once: a descriptor closed twice may be another's by then.
  return { busyMs, close: () => { if (open) { open = false; closeSync(fd); } } };
}
