// How a program stops early: on SIGINT, SIGTERM or SIGHUP, and when the process that started it goes
// away. A long-running mode (the proxy, the judging reference, the reference) then finishes and exits
// (stopOnSignals); a run that ends by itself takes nothing more (abortOnSignals). `npm run …` does not
// pass a SIGTERM on to node: npm and its `sh` die and node is re-parented, so the parent's
// disappearance is the only word node gets (observed with npm 11 on Linux).
import type { AtOnce } from './write-reports.js';

/** How often the parent is looked for: a stop comes at most this late after the parent died. */
export const PARENT_POLL_MS = 500;

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
/** The cause a stop names when the parent went away. */
const PARENT_ENDED = 'its parent process ended';

export interface StopOptions {
  /** The program's name, first on each line it prints. */
  name: string;
  /** What stopping does (write the reports, close the listener); resolves to the exit code. */
  finish: () => Promise<number>;
  /** What the line printed at once says stopping does (default: writing reports…). */
  doing?: string;
  /** Where the lines go (stderr by default). */
  say?: (line: string) => void;
  /** The parent's pid to watch (process.ppid at start by default); tests give their own. */
  parentPid?: number;
  exit?: (code: number) => void;
  /** Done when a second stop comes, before the process exits (at once, whatever `exit` is) with the
   *  code it gives: that of the verdict the reports it left state (write-reports.ts stoppedAtOnce). */
  atOnce?: () => AtOnce;
}

/** Installs the stop triggers at once (before a URL is announced: a caller may signal as soon as it
 *  reads it). The first trigger prints a line at once, runs `finish`, prints how long that took and
 *  the exit code (a caller that is not the parent reads it there), and exits with it; a second signal exits at once, with the code
 *  of the reports `atOnce` left (2 without). Returns the trigger, for a program's
 *  own reasons to stop. */
export function stopOnSignals(options: StopOptions): (cause: string) => void {
  const say = options.say ?? ((line: string) => process.stderr.write(`${line}\n`));
  const exit = options.exit ?? ((code: number) => process.exit(code));
  let stopping = false;
  const stop = (cause: string) => {
    if (stopping) {
      const left = options.atOnce?.();
      say(`${options.name}: stopped at once (${cause}, a second stop)${left ? `; ${left.said}` : ''}`);
      // The process, not `exit`: the proxy's `exit` ends its run's promise, and its judge went on to
      // write reports stating its verdict, and say its exit code, after this exit.
      process.exit(left?.code ?? 2);
    }
    stopping = true;
    unwatch();
    const started = process.hrtime.bigint();
    say(`${options.name}: stopping (${cause}): ${options.doing ?? 'writing reports…'}`);
    options.finish().then((code) => {
      const ms = Number((process.hrtime.bigint() - started) / 1_000_000n);
      say(`${options.name}: stopped in ${(ms / 1000).toFixed(1)} s, exit ${code}`);
      exit(code);
    }, (e: unknown) => {
      say(`${options.name}: stopping failed: ${String((e as Error)?.message ?? e).split('\n')[0]}`);
      exit(2);
    });
  };
  for (const signal of SIGNALS) process.on(signal, () => stop(signal));
  const unwatch = watchParent(options.parentPid, () => stop(PARENT_ENDED));
  return stop;
}

/** Calls `gone` once the process that started this one is gone (the `parentPid` given, else our
 *  ppid at the call); returns what ends the watch. Re-parented (to init or a subreaper) means the
 *  parent is gone; pid 1 as a parent from the start (a container's entry point) is never watched. */
function watchParent(parentPid: number | undefined, gone: () => void): () => void {
  const parent = parentPid ?? process.ppid;
  if (parent <= 1) return () => {};
  const watch = setInterval(() => {
    if (alive(parent, parentPid === undefined)) return;
    clearInterval(watch);
    gone();
  }, PARENT_POLL_MS);
  watch.unref(); // the watch alone keeps no program running
  return () => clearInterval(watch);
}

/** Whether the parent still is: our own ppid unchanged, or (for a given pid) the pid answering. */
function alive(pid: number, own: boolean): boolean {
  if (own) return process.ppid === pid;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A run that ends by itself (one that sends, or reads a recording), stopped early: on SIGINT,
 *  SIGTERM or SIGHUP, or when its parent goes away (as stopOnSignals), the returned signal aborts
 *  with the cause as its reason (the run takes nothing more, judges what it took and writes its
 *  reports, incomplete); `doing` is the line printed at once. A second signal exits at once, with
 *  the code `atOnce` gives (2: such a run has no reports before its end). */
export function abortOnSignals(name: string, doing: string, atOnce?: () => AtOnce): AbortSignal {
  const stop = new AbortController();
  const abort = (cause: string) => {
    if (stop.signal.aborted) {
      const left = atOnce?.(); // what is in the report directory would state another verdict than exit 2
      process.stderr.write(`${name}: stopped at once (${cause}, a second stop); ${left?.said ?? 'no reports written'}\n`);
      process.exit(left?.code ?? 2);
    }
    // A parent that ends after a signal (npm on Ctrl-C) is no second stop.
    unwatch();
    process.stderr.write(`${name}: stopping (${cause}): ${doing}\n`);
    stop.abort(cause);
  };
  for (const signal of SIGNALS) process.on(signal, () => abort(signal));
  const unwatch = watchParent(undefined, () => abort(PARENT_ENDED));
  return stop.signal;
}
