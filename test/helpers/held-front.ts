// What the tests of a run stopped by a signal share: a front to a deployment that can hold a request
// (so the signal comes while the run waits on it), and the run spawned as CI starts it, its output
// followed until it says it is stopping.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Readable } from 'node:stream';
import { childEnv, ROOT } from './cli.js';
import { owned } from './owned-children.js';

export interface Front {
  readonly url: string;
  /** Requests received so far. */
  received(): number;
  close(): Promise<void>;
}

/** Forwards every request to `to` as it came; `hold(n)` says whether to keep the n-th (from 1)
 *  waiting until the promise it gives settles. */
export async function heldFront(to: string, hold: (n: number) => Promise<void> | undefined): Promise<Front> {
  let n = 0;
  const server = createServer((req, res) => {
    const waiting = hold(++n) ?? Promise.resolve();
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void waiting.then(() => {
        const out = request(`${to}${req.url ?? '/'}`, { method: req.method, headers: req.headers }, (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        });
        out.on('error', () => res.destroy()); // the run gone (killed) before its answer
        out.end(Buffer.concat(chunks));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, received: () => n, close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }) };
}

/** A promise `held` that resolves when the request is held, and `release` to let it go. */
export function holding(): { held: Promise<void>; hold: () => Promise<void>; release: () => void } {
  let release!: () => void;
  const released = new Promise<void>((resolve) => { release = resolve; });
  let holdNow!: () => void;
  const held = new Promise<void>((resolve) => { holdNow = resolve; });
  return { held, hold: () => { holdNow(); return released; }, release: () => release() };
}

/** How a test stops a run: a signal sent to it, or `parent`, the end of the shell that started it, as
 *  when `npm run` is killed (npm passes no signal on to node: its sh dies and node is re-parented). */
export type Stop = 'SIGTERM' | 'SIGINT' | 'parent';

/** The cause the run's lines and summary.json name for a stop. */
export const causeOf = (how: Stop): string => (how === 'parent' ? 'its parent process ended' : how);

/** A stop as a test's title names it. */
export const stopTitle = (how: Stop): string => (how === 'parent' ? 'the shell that started it killed (npm run cancelled)' : how);

export interface SpawnedRun {
  /** The run itself, or for a `parent` stop the subreaper above its shell (its stdin is the run's). */
  readonly child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  /** Stops the run as the spawn was told: sends the signal, or kills the shell that started it. */
  stop(): void;
  /** Resolves once stderr says the run is stopping, or the process ended (killed by the signal, it never says so). */
  readonly stopping: Promise<void>;
  /** The exit code; 128 + the signal's number when a signal killed it (as a shell says). */
  readonly exit: Promise<number>;
  /** Kills whatever of the run is left (a test that failed leaves no process sending). */
  kill(): void;
}

/** Under a `parent` stop: a child subreaper (Linux's prctl) runs `sh -c` as npm does, that sh runs the
 *  command; the sh's death re-parents the command to the subreaper, not to init, so its exit code
 *  is still read. Fd 3 says `sh PID`, then `exit CODE` (negative: killed by that signal). */
const SUBREAPER = `
import ctypes, os, sys
if ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0) != 0: sys.exit('cannot be a child subreaper')
report = os.fdopen(3, 'w', buffering=1)
sh = os.fork()
if sh == 0:
    os.close(3)
    os.execvp('sh', ['sh', '-c', '"$@"; exit $?', 'sh', *sys.argv[1:]])
report.write(f'sh {sh}\\n')
while True:
    try: pid, status = os.wait()
    except ChildProcessError: break
    if pid != sh: report.write(f'exit {os.waitstatus_to_exitcode(status)}\\n')
`;

/** `node bin/run.mjs cli/main args` (npm run would not pass a signal on to node), to be stopped as `how` says. */
export function spawnRun(args: readonly string[], how: Stop = 'SIGTERM'): SpawnedRun {
  const command = [process.execPath, 'bin/run.mjs', 'cli/main', ...args];
  const underShell = how === 'parent';
  const child = owned(underShell
    ? spawn('python3', ['-c', SUBREAPER, ...command], { cwd: ROOT, env: childEnv(), detached: true, stdio: ['pipe', 'pipe', 'pipe', 'pipe'] })
    : spawn(command[0]!, command.slice(1), { cwd: ROOT, env: childEnv(), detached: true }), true) as ChildProcessWithoutNullStreams;
  let [stdout, stderr] = ['', ''];
  child.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
  const exited = new Promise<number>((resolve) => child.on('exit', (code, sig) => resolve(code ?? (sig === 'SIGTERM' ? 143 : sig === 'SIGINT' ? 130 : 128))));
  let sh: number | undefined;
  const exit = !underShell ? exited : new Promise<number>((resolve, reject) => {
    let said = '';
    (child.stdio[3] as Readable).on('data', (d: Buffer) => {
      said += d.toString();
      sh ??= Number(/^sh (\d+)$/m.exec(said)?.[1]) || undefined;
      const code = /^exit (-?\d+)$/m.exec(said);
      if (code) resolve(Number(code[1]) < 0 ? 128 - Number(code[1]) : Number(code[1]));
    });
    // After its output is read whole: the subreaper says the run's exit code before it ends.
    child.on('close', (code) => reject(new Error(`the subreaper ended (${code}) before saying the run's exit code: ${stderr}`)));
  });
  const said = new Promise<void>((resolve) => child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); if (stderr.includes('stopping')) resolve(); }));
  return {
    child, stdout: () => stdout, stderr: () => stderr, exit,
    stopping: Promise.race([said, exit.then(() => undefined)]),
    stop: () => {
      if (how !== 'parent') child.kill(how);
      else if (sh) process.kill(sh, 'SIGKILL');
      else throw new Error('the shell has not started');
    },
    kill: () => { try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* already gone */ } },
  };
}
