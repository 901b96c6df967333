// A process's own peak resident memory. Not getrusage's maxRSS, which Linux carries across exec from
// the process that forked it (exec_mmap keeps the old image's high-water mark): a child started by a
// parent of 500 MB said 504 MB of its own while its VmHWM said 39 MB (Node 20, 2026-11-27), so a run
// started by a large test runner, bench or CI wrapper reported the parent's memory as its peak.
import { readFileSync } from 'node:fs';

const VM_HWM = /^VmHWM:\s+(\d+) kB$/m;

/** Bytes: this process's VmHWM (Linux); elsewhere, where /proc is absent, maxRSS. */
export function peakRssBytes(): number {
  try {
    const m = VM_HWM.exec(readFileSync('/proc/self/status', 'utf8'));
    if (m) return Number(m[1]) * 1024;
  } catch {
    // no /proc (macOS, Windows): the only measure there is
  }
  return process.resourceUsage().maxRSS * 1024;
}
