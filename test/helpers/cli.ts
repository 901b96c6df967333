// Runs the conformance CLI as a child process, as CI does: through bin/run.mjs, so the compiled
// build when it is current (npm test builds first) and the TypeScript source when it is not.
// Progress lines are off (QUIET=1): they appear after a few seconds, so a loaded machine would
// change stderr; progress itself is tested with a fake clock (progress.test.ts). Each child is
// started in its own process group, killed whole when its test ends (owned-children.ts).
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { owned } from './owned-children.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface CliRun { code: number; stdout: string; stderr: string }

/** For a run whose test reads no junit.xml, Allure results or report.html: the presentation child and
 *  the Allure HTML are most of a CLI run's time. */
export const LEAN = ['--reports', 'summary,traceability'] as const;

/** Every output but report.html, for a run whose test scans its outputs for what must not be there
 *  (a secret, a raw control character): report.html is Allure's rendering of allure-results (scanned)
 *  under a banner made of the report's own words (summary.json, scanned), and building it is a second
 *  child per run. The tests of report.html itself read it: report-files, report-verdict-screen,
 *  report-tree-order, auditor-report, display, verdict, verdict-modes,
 *  merge-identity, differential-bounds, package, and the secrets run that keeps it. */
export const WITHOUT_HTML = ['--reports', 'summary,traceability,junit,allure'] as const;

export const runCli = (args: readonly string[], env: Record<string, string> = {}): Promise<CliRun> => runProgram('cli/main', args, env);

/** The environment every child gets: no BASE_URL from the caller's shell, no progress lines. */
export const childEnv = (env: Record<string, string> = {}): NodeJS.ProcessEnv => ({ ...process.env, BASE_URL: '', QUIET: '1', ...env });

/** Any of the harness's programs (bin/run.mjs <area/program>). Spawned, not execFile'd: execFile
 *  cannot start a process group. */
export function runProgram(program: string, args: readonly string[], env: Record<string, string> = {}): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = owned(spawn(process.execPath, ['bin/run.mjs', program, ...args], { cwd: ROOT, env: childEnv(env), detached: true }), true);
    // A hang guard only, under vitest's test limit (vitest.config.ts).
    const guard = setTimeout(() => child.kill(), 540_000);
    const out = { stdout: '', stderr: '' };
    let overflow = false;
    for (const name of ['stdout', 'stderr'] as const) {
      child[name].setEncoding('utf8').on('data', (d: string) => {
        out[name] += d;
        if (out[name].length > 16 * 1024 * 1024) { overflow = true; child.kill(); }
      });
    }
    child.on('error', (e) => { out.stderr += String(e); });
    child.on('close', (code) => { clearTimeout(guard); resolve({ code: overflow ? -1 : code ?? -1, ...out }); });
  });
}

/** A module preloaded into a program (and, without the file named, into any child it starts): its
 *  peak RSS (VmHWM, its own: see lib/peak-rss.ts) in KiB written at its exit, however it exits. */
const PEAK_RSS_HOOK = `import { readFileSync, writeFileSync } from 'node:fs'; const f = process.env.PEAK_RSS_FILE; delete process.env.PEAK_RSS_FILE;
if (f) process.on('exit', () => writeFileSync(f, /^VmHWM:\\s+(\\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'))[1]));`;

/** runProgram, with the program's peak RSS in MB: for a program that writes no summary.json (a refusal). */
export async function runProgramMeasured(program: string, args: readonly string[]): Promise<CliRun & { peakMb: number }> {
  const file = join(mkdtempSync(join(tmpdir(), 'peak-rss-')), 'kib');
  const r = await runProgram(program, args, { PEAK_RSS_FILE: file, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=data:text/javascript,${encodeURIComponent(PEAK_RSS_HOOK)}` });
  return { ...r, peakMb: Number(readFileSync(file, 'utf8')) / 1024 };
}

export interface Serving {
  readonly child: ChildProcessWithoutNullStreams;
  /** The first URL the program prints after "listening on" or "proxying". */
  readonly url: Promise<string>;
  readonly exit: Promise<number>;
  /** Everything printed so far, stdout and stderr. */
  output(): string;
}

/** A program that serves until stopped (the judging reference, the proxy), its output collected;
 *  `fileLimit`: run under `ulimit -n` of that many descriptors. */
export function servingProgram(program: string, args: readonly string[], fileLimit?: number): Serving {
  const command = [process.execPath, 'bin/run.mjs', program, ...args];
  const child = owned(fileLimit === undefined ? spawn(command[0]!, command.slice(1), { cwd: ROOT, env: childEnv(), detached: true })
    : spawn('sh', ['-c', `ulimit -n ${fileLimit} && exec "$0" "$@"`, ...command], { cwd: ROOT, env: childEnv(), detached: true }), true);
  let out = '';
  child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
  child.stderr.on('data', (d: Buffer) => { out += d.toString(); });
  const url = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', () => { const m = /(?:listening on|proxying) (\S+)/.exec(out); if (m) resolve(m[1]!); });
    child.on('exit', () => reject(new Error(`exited early: ${out}`)));
  });
  // Not awaited by every test (one that ends first kills the program, which a loaded machine had not
  // yet started: an unhandled rejection failed the whole run): a rejection no one awaits is dropped.
  url.catch(() => undefined);
  const exit = new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? -1)));
  return { child, url, exit, output: () => out };
}

/** Stops a serving program with SIGTERM: its exit code, and its peak RSS in MB (VmHWM, read until
 *  the process is gone: it finishes what waits for it while stopping). Linux only. */
export async function stopMeasured(s: Serving): Promise<{ code: number; peakMb: number }> {
  s.child.kill('SIGTERM');
  const peakMb = () => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${s.child.pid}/status`, 'utf8'))![1]) / 1024;
  let peak = peakMb();
  for (let gone = false; !gone;) {
    try { peak = Math.max(peak, peakMb()); } catch { gone = true; }
    gone ||= await Promise.race([s.exit.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 20))]);
  }
  return { code: await s.exit, peakMb: peak };
}

/** POSTs `body` as JSON to `url`: the answer's status and the SHA-256 of its body, read whole. */
export const postDigest = (url: string, body: string): Promise<string> => new Promise((resolve, reject) => {
  const r = request(url, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
    const hash = createHash('sha256');
    res.on('data', (d: Buffer) => hash.update(d));
    res.on('end', () => resolve(`${res.statusCode} ${hash.digest('hex')}`));
  });
  r.on('error', reject);
  r.end(body);
});
