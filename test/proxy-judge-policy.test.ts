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

describe('the proxy judge\'s scheduling policy', () => {
  it.skipIf(!seen)(seen
    ? 'the judge thread alone runs SCHED_IDLE at nice 19; the forwarding (main) thread keeps the normal policy'
    : `SKIPPED: ${!linux ? 'not Linux: no scheduling policy per thread' : !chrt ? 'no chrt (util-linux) here: the judge keeps nice 19 alone' : 'the runner itself is idle-scheduled'}`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'proxy-policy-'));
    // Nothing is forwarded: the judge starts before the proxy listens, whatever the target.
    const s = servingProgram('cli/main', ['--proxy', '0', '--base-url', 'http://127.0.0.1:9', '--report-dir', dir, '--reports', 'summary']);
    try {
      await s.url;
      const pid = s.child.pid!;
      const threads = () => readdirSync(`/proc/${pid}/task`).map((tid) => {
        const f = fields(`/proc/${pid}/task/${tid}/stat`);
        return { tid, nice: Number(f[16]), policy: Number(f[38]) };
      });
      await until(() => threads().some((t) => t.policy === SCHED_IDLE), 'the judge thread to take the idle policy', 30_000);
      const idle = threads().filter((t) => t.policy === SCHED_IDLE);
      expect(idle.map((t) => t.nice)).toEqual([19]); // one thread, the judge (the one at nice 19)
      expect(policyOf(`/proc/${pid}/task/${pid}/stat`)).toBe(0);
      s.child.kill('SIGTERM');
      expect(await s.exit).toBe(2); // nothing was observed
    } finally {
      s.child.kill('SIGKILL');
    }
  }, 60_000);

  it.skipIf(!linux)(linux
    ? 'with --judge-priority normal no thread of the proxy takes the idle policy or nice 19 (the judge shares the CPU with the traffic)'
    : 'SKIPPED: not Linux: no scheduling policy per thread', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'proxy-policy-'));
    const s = servingProgram('cli/main', ['--proxy', '0', '--base-url', 'http://127.0.0.1:9', '--report-dir', dir, '--reports', 'summary', '--judge-priority', 'normal']);
    try {
      await s.url; // the judge has set itself up (and would have lowered its priority) before the proxy listens
      const pid = s.child.pid!;
      const threads = readdirSync(`/proc/${pid}/task`).map((tid) => fields(`/proc/${pid}/task/${tid}/stat`)).map((f) => ({ nice: Number(f[16]), policy: Number(f[38]) }));
      expect(threads.filter((t) => t.policy === SCHED_IDLE || t.nice === 19)).toEqual([]);
      s.child.kill('SIGTERM');
      expect(await s.exit).toBe(2); // nothing was observed
    } finally {
      s.child.kill('SIGKILL');
    }
  }, 60_000);

  it.skipIf(!seen)(seen
    ? 'the children the judge has started (the reports\' presentation) take the forwarding thread\'s normal policy and nice 0, not the judge\'s SCHED_IDLE'
    : 'SKIPPED: no idle-scheduled judge here (see above)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'proxy-policy-'));
    const s = servingProgram('cli/main', ['--proxy', '0', '--base-url', 'http://127.0.0.1:9', '--report-dir', dir, '--reports', 'allure']);
    try {
      await s.url;
      const pid = s.child.pid!;
      await until(() => readdirSync(`/proc/${pid}/task`).some((tid) => policyOf(`/proc/${pid}/task/${tid}/stat`) === SCHED_IDLE), 'the judge thread to take the idle policy', 30_000);
      // Stopped, the judge writes its last reports: allure-results through the presentation child.
      s.child.kill('SIGTERM');
      const presentation = (): { nice: number; policy: number } | undefined => {
        for (const p of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
          try {
            const f = fields(`/proc/${p}/stat`);
            if (Number(f[1]) !== pid || !readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('cli/present')) continue;
            return { nice: Number(f[16]), policy: Number(f[38]) };
          } catch { /* gone meanwhile */ }
        }
        return undefined;
      };
      let seenChild: { nice: number; policy: number } | undefined;
      await until(() => (seenChild = presentation()) !== undefined, 'the presentation child to start', 60_000);
      expect(seenChild).toEqual({ nice: 0, policy: 0 });
      expect(await s.exit).toBe(2); // nothing was observed
    } finally {
      s.child.kill('SIGKILL');
    }
  }, 120_000);
});
