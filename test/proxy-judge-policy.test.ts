// The validating proxy's judge runs under Linux's idle scheduling policy (SCHED_IDLE) besides nice
// 19: a thread at nice 19 keeps its core through the rest of its slice when the forwarding thread
// wakes, an idle-policy one gives it up at once (lib/cli/proxy-judge.ts). Read from
// /proc/PID/task/TID/stat, field 41 (policy: 0 normal, 5 idle).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { platform, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { servingProgram } from './helpers/cli.js';
import { until } from './helpers/wait.js';

const SCHED_IDLE = 5;
const fields = (path: string) => readFileSync(path, 'utf8').replace(/^.*\) /s, '').split(' ');
const policyOf = (path: string) => Number(fields(path)[38]);
const linux = platform() === 'linux';
const chrt = linux && spawnSync('chrt', ['--help'], { stdio: 'ignore' }).status === 0;
// A runner already idle-scheduled starts every thread so: a judge that set it could not be told apart.
const runnerIdle = linux && policyOf('/proc/self/stat') === SCHED_IDLE;
const seen = chrt && !runnerIdle;

/** Each thread of process `pid`: its nice value and scheduling policy. */
const threadsOf = (pid: number) => readdirSync(`/proc/${pid}/task`).map((tid) => {
  const f = fields(`/proc/${pid}/task/${tid}/stat`);
  return { tid, nice: Number(f[16]), policy: Number(f[38]) };
});

/** A proxy in front of nothing (the judge starts before it listens, whatever the target), given to
 *  `body` once it listens; then stopped by SIGTERM, which `body` may send first: exit 2, nothing observed. */
async function withProxy(args: readonly string[], body: (pid: number, stop: () => void) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'proxy-policy-'));
  const s = servingProgram('cli/main', ['--proxy', '0', '--base-url', 'http://127.0.0.1:9', '--report-dir', dir, ...args]);
  try {
    await s.url;
    let stopped = false;
    const stop = () => { stopped = true; s.child.kill('SIGTERM'); };
    await body(s.child.pid!, stop);
    if (!stopped) stop(); // once: a second signal stops at once
    expect(await s.exit).toBe(2);
  } finally {
    s.child.kill('SIGKILL');
  }
}

/** The proxy's presentation child (its last reports' pages), with its nice value and policy, if running. */
function presentationOf(pid: number): { nice: number; policy: number } | undefined {
  for (const p of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const f = fields(`/proc/${p}/stat`);
      if (Number(f[1]) !== pid || !readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('cli/present')) continue;
      return { nice: Number(f[16]), policy: Number(f[38]) };
    } catch { /* gone meanwhile */ }
  }
  return undefined;
}

// Raising a thread's priority takes root (or an RLIMIT_NICE that reaches nice 0) on Linux.
const mayRaise = seen && process.getuid?.() === 0;

const judgeIdle = (pid: number) => until(() => threadsOf(pid).some((t) => t.policy === SCHED_IDLE), 'the judge thread to take the idle policy', 30_000);

/** Once the judge has taken the idle policy, the proxy stopped: it writes its last reports (allure-results
 *  through the presentation child), whose nice value and policy are given once the child runs. */
async function writingLastReports(pid: number, stop: () => void): Promise<{ nice: number; policy: number }> {
  await judgeIdle(pid);
  stop();
  let child: { nice: number; policy: number } | undefined;
  await until(() => (child = presentationOf(pid)) !== undefined, 'the presentation child to start', 60_000);
  return child!;
}

describe('the proxy judge\'s scheduling policy', () => {
  it.skipIf(!seen)(seen
    ? 'the judge thread alone runs SCHED_IDLE at nice 19; the forwarding (main) thread keeps the normal policy'
    : `SKIPPED: ${!linux ? 'not Linux: no scheduling policy per thread' : !chrt ? 'no chrt (util-linux) here: the judge keeps nice 19 alone' : 'the runner itself is idle-scheduled'}`, async () => {
    await withProxy(['--reports', 'summary'], async (pid) => {
      await judgeIdle(pid);
      const idle = threadsOf(pid).filter((t) => t.policy === SCHED_IDLE);
      expect(idle.map((t) => t.nice)).toEqual([19]); // one thread, the judge (the one at nice 19)
      expect(policyOf(`/proc/${pid}/task/${pid}/stat`)).toBe(0);
    });
  }, 60_000);

  it.skipIf(!linux)(linux
    ? 'with --judge-priority normal no thread of the proxy takes the idle policy or nice 19 (the judge shares the CPU with the traffic)'
    : 'SKIPPED: not Linux: no scheduling policy per thread', async () => {
    // The judge has set itself up (and would have lowered its priority) before the proxy listens.
    await withProxy(['--reports', 'summary', '--judge-priority', 'normal'], async (pid) => {
      expect(threadsOf(pid).filter((t) => t.policy === SCHED_IDLE || t.nice === 19)).toEqual([]);
    });
  }, 60_000);

  it.skipIf(!seen)(seen
    ? 'the children the judge has started (the reports\' presentation) take the forwarding thread\'s normal policy and nice 0, not the judge\'s SCHED_IDLE'
    : 'SKIPPED: no idle-scheduled judge here (see above)', async () => {
    await withProxy(['--reports', 'allure'], async (pid, stop) => {
      expect(await writingLastReports(pid, stop)).toEqual({ nice: 0, policy: 0 });
    });
  }, 120_000);

  it.skipIf(!mayRaise)(mayRaise
    ? 'stopped, the judge thread takes back the normal policy and nice 0 for its last judging and reports (no thread is idle-scheduled or at nice 19 once they are being written)'
    : 'SKIPPED: no idle-scheduled judge here, or not root (Linux lets no other user raise a thread\'s priority)', async () => {
    await withProxy(['--reports', 'allure'], async (pid, stop) => {
      // The presentation child runs once the judge has begun its last reports (it set its priority first).
      await writingLastReports(pid, stop);
      expect(threadsOf(pid).filter((t) => t.policy === SCHED_IDLE || t.nice === 19)).toEqual([]);
    });
  }, 120_000);
});
