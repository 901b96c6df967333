// No process a test started runs on after it: vitest abandons a test that timed out (no finally of
// it runs) and a failed one's cleanup may never be reached, so a child left to the test itself would
// run on, orphaned. A child started inside a test (not a concurrent one: vitest does not say which of
// those is running) is killed when that test ends, however it ends; any other (a beforeAll's, a
// concurrent test's) when its file ends (test/setup/kill-owned.ts), or when the worker exits.
import type { ChildProcess } from 'node:child_process';
import { onTestFinished } from 'vitest';
import { getCurrentTest } from 'vitest/suite';

const running = new Set<() => void>();
let onExit = false;

/** Registers `child` to be killed as above; `group`: it was spawned detached (its own process group),
 *  and the whole group is killed, whatever it started too (a CLI's presentation child, a shell's
 *  command), even once the child itself has ended. */
export function owned<C extends ChildProcess>(child: C, group = false): C {
  const kill = (): void => {
    running.delete(kill);
    try {
      if (group && child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      else child.kill('SIGKILL');
    } catch { /* gone already */ }
  };
  running.add(kill);
  // Once nothing of it is left, its pid may be another's (a group's id among them): forget it.
  child.on('exit', () => { if (!group || !groupAlive(child.pid!)) running.delete(kill); });
  if (!onExit) { onExit = true; process.on('exit', killOwned); }
  const test = getCurrentTest();
  if (test && !test.concurrent) onTestFinished(kill);
  return child;
}

function groupAlive(id: number): boolean {
  try {
    process.kill(-id, 0);
    return true;
  } catch {
    return false;
  }
}

/** Kills every registered child still running. */
export function killOwned(): void {
  for (const kill of [...running]) kill();
}
