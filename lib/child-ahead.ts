// A child process started before its input exists: it loads its modules (most of a short child's
// start) while the run is still busy, then waits for one line on stdin and does its work. Until it
// is given work it holds nothing of the run's process open, and an empty stdin (the run needed it
// not, or ended) ends it; a run that never gives it work loses nothing but the head start.
import { spawn, type ChildProcess } from 'node:child_process';

export interface ChildAhead {
  readonly pid: number | undefined;
  /** Gives the child its line; resolves with its exit code and what it printed (stdout when piped,
   *  stderr's last 64 KiB). The child is killed after `timeoutMs`. */
  run(line: string, timeoutMs: number): Promise<{ readonly code: number | null; readonly stdout: string; readonly stderr: string }>;
}

/** Starts a child as childAhead does, somewhere else; undefined: here after all. */
export type ChildStarter = (args: readonly string[], stdout: boolean) => ChildAhead | undefined;
let starter: ChildStarter | undefined;

/** This thread's children are started by `start` from now on, where it says so: a thread at the
 *  lowest CPU priority (the proxy's judge) has those of its last reports started by one that is not,
 *  since a child takes its starter's priority and cannot raise it (a report's presentation then
 *  starved on a busy machine until it was killed, and the proxy could not write its last reports). */
export function startChildrenWith(start: ChildStarter): void {
  starter = start;
}

/** Node with `args`, its stdin a pipe; its stdout read when `stdout`, else ignored. */
export function childAhead(args: readonly string[], stdout: boolean): ChildAhead {
  return starter?.(args, stdout) ?? childHere(args, stdout);
}

/** This thread's children not yet ended. */
const alive = new Set<ChildProcess>();

/** Ends every child this thread started that is still running (SIGKILL, sent at once): a run stopped
 *  at once exits, and a presentation child it leaves would go on writing into the report directory. */
export function endChildren(): void {
  for (const child of alive) child.kill('SIGKILL');
  alive.clear();
}

function childHere(args: readonly string[], stdout: boolean): ChildAhead {
  const child = spawn(process.execPath, args, { stdio: ['pipe', stdout ? 'pipe' : 'ignore', 'pipe'] });
  alive.add(child);
  child.on('exit', () => alive.delete(child));
  const stdin = child.stdin!;
  const stderr = child.stderr!;
  let [out, err] = ['', ''];
  child.stdout?.setEncoding('utf8').on('data', (d: string) => { if (out.length < 1024 * 1024) out += d; });
  stderr.setEncoding('utf8').on('data', (d: string) => { if (err.length < 64 * 1024) err += d; });
  const ended = new Promise<number | null>((resolve) => { child.on('close', resolve); child.on('error', () => resolve(-1)); });
  stdin.on('error', () => undefined); // a child that ended early says so by its exit code
  const handles = [child, stdin, child.stdout, stderr] as unknown as ({ ref?: () => void; unref?: () => void } | null)[];
  const holdOpen = (hold: boolean) => { for (const h of handles) (hold ? h?.ref : h?.unref)?.call(h); };
  holdOpen(false);
  return {
    pid: child.pid,
    run: async (line, timeoutMs) => {
      holdOpen(true);
      const timer = setTimeout(() => child.kill(), timeoutMs);
      stdin.end(line);
      const code = await ended;
      clearTimeout(timer);
      return { code, stdout: out, stderr: err };
    },
  };
}
