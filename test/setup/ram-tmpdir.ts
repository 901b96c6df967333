// The harness project's global setup: every temporary file of the suite (report directories,
// recordings, the CLI children's own staging) goes to a fresh directory in RAM (/dev/shm) when the
// machine has one. The suite writes tens of thousands of small files (each presented run leaves
// hundreds in allure-results); on the project's ext4 disk, creating them cost seconds of system time
// per run under load, on tmpfs a tenth of that. Set before vitest forks its workers, so every test
// file and every program a test starts inherits it. Without /dev/shm, the system's temporary
// directory as before; a TMPDIR the caller set is kept. Removed at the end of the run; one a killed
// run left (hundreds of MB of RAM, until a reboot) is removed by the next run.
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { namedForThisProcess, removeAbandonedWorkDirs } from '../../lib/reporting/work-dirs.js';

const RAM = '/dev/shm';
const SUITE_DIR = 'soap-json-conformance-tests-';

export default function setup(): () => void {
  if (process.env.TMPDIR) return () => {};
  try {
    accessSync(RAM, constants.W_OK);
  } catch {
    return () => {};
  }
  for (const p of removeAbandonedWorkDirs([RAM], [SUITE_DIR])) process.stderr.write(`${p}\n`);
  const dir = mkdtempSync(join(RAM, namedForThisProcess(SUITE_DIR)));
  process.env.TMPDIR = dir;
  return () => {
    delete process.env.TMPDIR;
    rmSync(dir, { recursive: true, force: true });
  };
}
