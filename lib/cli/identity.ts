// The harness as the reports name it (package name, version, the commit of its own checkout), and
// the run a report belongs to: what a merge compares so that it takes the shards of one run only.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, constants, createReadStream, existsSync, fstatSync, openSync, readFileSync, readSync, statSync, type BigIntStats } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT as ROOT } from '../paths.js';
import { CATALOGUE_HASH } from '../checks/catalogue.js';
import type { Report, RunIdentity } from '../reporting/report.js';

/** Read once per process: the code that runs is the code loaded at its start (a long-running proxy
 *  rewrites its reports many times; a commit made meanwhile is not what runs). */
let harness: Report['harness'] | undefined;

export function harnessIdentity(): Report['harness'] {
  return (harness ??= readHarnessIdentity());
}

function readHarnessIdentity(): Report['harness'] {
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

/** CI systems' ids of one pipeline run, the same in every job of its matrix (first found wins). */
const CI_RUN_IDS = ['GITHUB_RUN_ID', 'CI_PIPELINE_ID', 'BUILD_BUILDID', 'CIRCLE_WORKFLOW_ID', 'BUILDKITE_BUILD_ID'] as const;

/** What differs between the shards of one run and so stays out of the configuration's hash: where
 *  each writes, which part it takes, what only shard 1 does (the generated requests' seed), the run
 *  id itself (compared on its own), progress lines, the judging threads (--jobs: the reports are the
 *  same whatever their number), and a merge's own sources. */
const PER_SHARD = new Set(['reportDir', 'generate', 'mergedFrom']);
const PER_SHARD_OPTIONS = new Set(['report-dir', 'shard', 'run-id', 'quiet', 'jobs']);

/** The shown configuration as the shards of one run share it. */
export function sharedConfiguration(configuration: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out = Object.fromEntries(Object.entries(configuration).filter(([k]) => !PER_SHARD.has(k)));
  const options = configuration.options as Record<string, unknown> | undefined;
  if (options) out.options = Object.fromEntries(Object.entries(options).filter(([k]) => !PER_SHARD_OPTIONS.has(k)));
  return out;
}

/** JSON with every object's keys sorted: the same configuration always hashes the same. */
const canonical = (v: unknown): string =>
  Array.isArray(v) ? `[${v.map(canonical).join(',')}]`
    : v && typeof v === 'object' ? `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`).join(',')}}`
      : JSON.stringify(v) ?? 'null';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** Files up to this size are hashed by reading them here at once: a stream costs several round trips
 *  to the thread pool per file, and a manifest hashes allure-results' 800 files (0.4 s of a cold run
 *  against 0.03). A larger one is streamed, so that a long-running mode's loop is never held long. */
const READ_AT_ONCE = 1024 * 1024;
const SCRATCH = Buffer.allocUnsafe(64 * 1024);

/** What tells a file's version apart: its inode, size and times (a file rewritten in place or
 *  replaced by rename has another). */
const versionOf = (s: BigIntStats) => `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;

/** The version of the file at `path` now, or undefined for anything but a regular file. */
export function fileVersion(path: string): string | undefined {
  const stat = statSync(path, { bigint: true, throwIfNoEntry: false });
  return stat?.isFile() ? versionOf(stat) : undefined;
}

/** The SHA-256 of a regular file of at most READ_AT_ONCE bytes, read now, and the version it was read
 *  from; undefined for anything else (left to fileSha256). */
export function smallFileSha256(path: string): { readonly sha256: string; readonly version: string } | undefined {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const stat = fstatSync(fd, { bigint: true });
    if (!stat.isFile() || stat.size > READ_AT_ONCE) return undefined;
    const hash = createHash('sha256');
    for (let n = readSync(fd, SCRATCH); n > 0; n = readSync(fd, SCRATCH)) hash.update(SCRATCH.subarray(0, n));
    return { sha256: hash.digest('hex'), version: versionOf(stat) };
  } finally {
    closeSync(fd);
  }
}

export async function fileSha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  // Non-blocking: a FIFO planted at the name cannot hold the open; anything but a regular file is refused.
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  let streamed = false;
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new Error(`${path} is not a regular file`);
    if (stat.size <= READ_AT_ONCE) {
      // To its end, however it grew since: the memory is SCRATCH's whatever the file's size.
      for (let n = readSync(fd, SCRATCH); n > 0; n = readSync(fd, SCRATCH)) hash.update(SCRATCH.subarray(0, n));
      return hash.digest('hex');
    }
    streamed = true;
  } finally {
    if (!streamed) closeSync(fd);
  }
  for await (const chunk of createReadStream('', { fd })) hash.update(chunk as Buffer); // the same file, closed at its end
  return hash.digest('hex');
}

/**
 * The run a report belongs to. Its id: --run-id (RUN_ID) when given; else the CI run's id, which
 * every job of one workflow run shares (GITHUB_RUN_ID, GitLab's CI_PIPELINE_ID, …); else derived
 * from the configuration, catalogue, accounts and harness, so that shards run by hand with the same
 * inputs agree (and two such runs at different times cannot be told apart: give them --run-id).
 */
export async function runIdentity(
  configuration: Readonly<Record<string, unknown>>, given: Readonly<Record<string, unknown>>, env: NodeJS.ProcessEnv, accounts?: string,
): Promise<RunIdentity> {
  const harness = harnessIdentity();
  const configurationSha256 = sha256(canonical({ configuration: sharedConfiguration(configuration), harness: { version: harness.version, commit: harness.commit ?? null } }));
  const accountsSha256 = accounts ? await fileSha256(accounts) : undefined;
  const option = typeof given['run-id'] === 'string' && given['run-id'] ? given['run-id'] : undefined;
  const ci = CI_RUN_IDS.find((name) => env[name]);
  const [runId, runIdFrom] = option ? [option, '--run-id']
    : ci ? [`${ci}=${env[ci]!}`, ci]
      : [sha256(`${configurationSha256}\0${CATALOGUE_HASH}\0${accountsSha256 ?? ''}`).slice(0, 16), 'derived from the configuration and inputs'];
  return { runId, runIdFrom, configurationSha256, catalogueHash: CATALOGUE_HASH, ...(accountsSha256 ? { accountsSha256 } : {}) };
}
