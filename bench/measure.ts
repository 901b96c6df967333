// Measuring tools for `npm run bench`: CPU time of a process (from /proc, so a server in a child
// process is measured, not the load generator), load generation with autocannon, and
// min/median/max over rounds. Only CPU time per unit is steady on shared cores; wall-clock rates
// are printed beside it, never alone.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import autocannon from 'autocannon';
import { PROJECT_ROOT } from '../lib/paths.js';

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ: 100 on every Linux Node supports). */
const TICKS = 100;

/** CPU seconds a live process has used, every thread counted (utime + stime); undefined off Linux. */
export function cpuSecondsOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces), closing parenthesis excluded.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS;
  } catch {
    return undefined;
  }
}

/** CPU seconds of this process's children that have ended and been waited for (cutime + cstime):
 *  read before and after a child runs, the difference is that child's CPU, its own children included. */
export function endedChildrenCpuSeconds(): number | undefined {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[13]) + Number(fields[14])) / TICKS;
  } catch {
    return undefined;
  }
}

/** This process's own CPU seconds (autocannon runs here). */
export const ownCpuSeconds = (): number => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; };

export const loadAverage = (): string => loadavg().map((x) => x.toFixed(2)).join(' ');

/** A server in a child process, started with `node args…`, once it prints the address it listens on. */
export function serve(args: string[]): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, args, { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, BASE_URL: '' } });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited (${code}) before listening`)));
    child.stdout!.on('data', (d: Buffer) => {
      const url = /(?:listening on|proxying) (\S+)/.exec(d.toString())?.[1];
      if (url) resolve({ url, child });
    });
  });
}

/** Stops a child and waits for it to go. */
export function stop(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => { child.once('exit', () => resolve()); child.kill(signal); });
}

export interface Request { readonly path: string; readonly body: string; readonly headers?: Record<string, string> }

export interface Load {
  /** Requests answered per second (wall clock). */
  readonly rps: number;
  /** Requests answered within the sample. */
  readonly total: number;
  /** Requests sent, those still in flight when the sample ended included. */
  readonly sent: number;
  readonly p99: number;
  /** Responses other than 2xx, and connection errors. */
  readonly non2xx: number;
  readonly errors: number;
  /** CPU microseconds per answered request of the watched process (the server), when watched. */
  readonly serverCpuUs?: number;
  /** CPU microseconds per request of the load generator (this process). */
  readonly clientCpuUs: number;
}

/** `seconds` (or `amount` requests) of load from autocannon, `connections` at a time. The requests are drawn in turn from
 *  `requests` by every connection together (one shared cursor), so a list of accounts is replayed
 *  account after account, as the harness sends them, not each connection from the first. */
export async function load(url: string, requests: readonly Request[], options: { seconds: number; connections: number; watch?: number; amount?: number }): Promise<Load> {
  let next = 0;
  const serverBefore = options.watch ? cpuSecondsOf(options.watch) : undefined;
  const clientBefore = ownCpuSeconds();
  const r = await autocannon({
    url, method: 'POST', connections: options.connections, duration: options.seconds, ...(options.amount ? { amount: options.amount } : {}),
    headers: { 'content-type': 'application/json' },
    requests: [{
      setupRequest: (req) => {
        const q = requests[next++ % requests.length]!;
        return { ...req, path: q.path, body: q.body, headers: { ...req.headers, 'content-type': 'application/json', ...q.headers } };
      },
    }],
  });
  const clientCpu = ownCpuSeconds() - clientBefore;
  const serverAfter = options.watch ? cpuSecondsOf(options.watch) : undefined;
  const answered = r.requests.total;
  return {
    rps: r.requests.average, total: answered, sent: (r.requests as { sent?: number }).sent ?? answered, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors,
    ...(serverBefore !== undefined && serverAfter !== undefined && answered > 0 ? { serverCpuUs: ((serverAfter - serverBefore) * 1e6) / answered } : {}),
    clientCpuUs: answered > 0 ? (clientCpu * 1e6) / answered : NaN,
  };
}

/** min / median / max of a figure over rounds. */
export interface Spread { readonly min: number; readonly median: number; readonly max: number }
export function spread(xs: readonly number[]): Spread {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (!s.length) return { min: NaN, median: NaN, max: NaN };
  const mid = s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
  return { min: s[0]!, median: mid, max: s[s.length - 1]! };
}

/** "a / b / c" with `digits` decimals. */
export const shown = (s: Spread, digits = 2): string => [s.min, s.median, s.max].map((x) => x.toFixed(digits)).join(' / ');
