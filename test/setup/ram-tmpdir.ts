// The harness project's global setup: every temporary file of the suite (report directories,
// recordings, the CLI children's own staging) goes to a fresh directory in RAM (/dev/shm) when the
// machine has one. The suite writes tens of thousands of small files (each presented run leaves
// hundreds in allure-results); on the project's ext4 disk, creating them cost seconds of system time
// per run under load, on tmpfs a tenth of that. Set before vitest forks its workers, so every test
// file and every program a test starts inherits it. Without /dev/shm, the system's temporary
// directory as before; a TMPDIR the caller set is kept. Removed at the end of the run.
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const RAM = '/dev/shm';

export default function setup(): () => void {
  if (process.env.TMPDIR) return () => {};
  try {
    accessSync(RAM, constants.W_OK);
  } catch {
    return () => {};
  }
  const dir = mkdtempSync(join(RAM, 'soap-json-conformance-tests-'));
  process.env.TMPDIR = dir;
  return () => {
    delete process.env.TMPDIR;
    rmSync(dir, { recursive: true, force: true });
  };
}
