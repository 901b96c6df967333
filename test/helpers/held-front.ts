// What the tests of a run stopped by a signal share: a front to a deployment that can hold a request
// (so the signal comes while the run waits on it), and the run spawned as CI starts it, its output
// followed until it says it is stopping.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { childEnv, ROOT } from './cli.js';

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

export interface SpawnedRun {
  readonly child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  /** Resolves once stderr says the run is stopping, or the process ended (killed by the signal, it never says so). */
  readonly stopping: Promise<void>;
  /** The exit code; 128 + the signal's number when a signal killed it (as a shell says). */
  readonly exit: Promise<number>;
}

/** `node bin/run.mjs cli/main args` (npm run would not pass a signal on to node). */
export function spawnRun(args: readonly string[]): SpawnedRun {
  const child = spawn(process.execPath, ['bin/run.mjs', 'cli/main', ...args], { cwd: ROOT, env: childEnv() });
  let [stdout, stderr] = ['', ''];
  child.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
  const exit = new Promise<number>((resolve) => child.on('exit', (code, sig) => resolve(code ?? (sig === 'SIGTERM' ? 143 : sig === 'SIGINT' ? 130 : 128))));
  const said = new Promise<void>((resolve) => child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); if (stderr.includes('stopping')) resolve(); }));
  return { child, stdout: () => stdout, stderr: () => stderr, stopping: Promise.race([said, exit.then(() => undefined)]), exit };
}
