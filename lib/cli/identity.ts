// The harness as the reports name it: package name, version, and the commit of its own checkout.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT as ROOT } from '../paths.js';
import type { Report } from '../reporting/report.js';

export function harnessIdentity(): Report['harness'] {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };
  let commit: string | undefined;
  // Only the harness's own checkout: installed inside someone's repository, `git rev-parse` would
  // answer with that project's commit, and the auditor's manifest would name the wrong code.
  if (existsSync(join(ROOT, '.git'))) try {
    commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, timeout: 2000, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim() || undefined;
  } catch {
    commit = undefined; // not a git checkout
  }
  return { name: pkg.name, version: pkg.version, ...(commit ? { commit } : {}) };
}
