// A report directory under a parent that exists but can hold no child and says ENOENT (procfs):
// Node's recursive mkdir retries that forever at full CPU, so `--report-dir /proc/1/x` hung every
// program with no word. It is now bad input like any other: exit 2 in one line.
import { existsSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeDirectory } from '../lib/cli/make-directory.js';
import { runCli, runProgram } from './helpers/cli.js';

const procfs = existsSync('/proc/1');

describe('a report directory that cannot be made', () => {
  it.skipIf(!procfs)('makeDirectory("/proc/1/x/y") throws ENOENT at once', () => {
    expect(() => makeDirectory('/proc/1/x/y')).toThrow(expect.objectContaining({ code: 'ENOENT' }));
  });

  it('makeDirectory makes every missing parent, and takes a directory that is there', () => {
    const base = mkdtempSync(join(tmpdir(), 'make-directory-'));
    makeDirectory(join(base, 'a', 'b', 'c'));
    makeDirectory(join(base, 'a', 'b', 'c'));
    expect(statSync(join(base, 'a', 'b', 'c')).isDirectory()).toBe(true);
    expect(() => makeDirectory(join(base, 'a', 'b', 'c', '..', '..', 'b'))).not.toThrow();
  });

  it.skipIf(!procfs)('conformance and reference --judge-clients exit 2 in one line', { timeout: 120_000 }, async () => {
    const conformance = await runCli(['--report-dir', '/proc/1/x', '--reports', 'summary', '--quiet']);
    expect([conformance.code, conformance.stderr]).toEqual([2, 'conformance: cannot use the report directory /proc/1/x: ENOENT\n']);
    const reference = await runProgram('cli/reference', ['--judge-clients', '--port', '0', '--report-dir', '/proc/1/x']);
    expect([reference.code, reference.stderr.split('\n')[0]]).toEqual([2, 'reference: cannot use the report directory /proc/1/x: ENOENT']);
  });
});
