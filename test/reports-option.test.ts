// --reports chooses the outputs: the presentation child (allure-results) and the Allure HTML are
// skipped unless chosen; junit.xml is written from the report without them; an unknown name is
// refused in one line.
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.js';

const reports = () => mkdtempSync(join(tmpdir(), 'reports-option-'));

describe('--reports', () => {
  it('summary alone: summary.json, exchanges.json and replay.sh, nothing else; the verdict and exit code unchanged', async () => {
    const dir = reports();
    const r = await runCli(['--report-dir', dir, '--reports', 'summary']);
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(readdirSync(dir).sort()).toEqual(['exchanges.json', 'manifest.json', 'replay.sh', 'summary.json']); // the manifest hashes what was written
    expect(r.stdout).toMatch(/Verdict: CONFORMANT/);
  });

  it('REPORTS=traceability from the environment writes traceability.md alone, with the spec it links to', async () => {
    const dir = reports();
    const r = await runCli(['--report-dir', dir], { REPORTS: 'traceability' });
    expect(r.code).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(['interface.md', 'manifest.json', 'traceability.md']);
    expect(existsSync(join(dir, 'report.html'))).toBe(false);
  });

  it('junit alone: junit.xml without the presentation child, holding every check', async () => {
    const dir = reports();
    const r = await runCli(['--report-dir', dir, '--reports', 'junit']);
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(readdirSync(dir).sort()).toEqual(['junit.xml', 'manifest.json']);
    expect(readFileSync(join(dir, 'junit.xml'), 'utf8')).toMatch(/<testsuites name="conformance: CONFORMANT" tests="62" failures="0"/);
  });

  it('an unknown name: exit 2 in one line naming it and the choices', async () => {
    const r = await runCli(['--report-dir', reports(), '--reports', 'summary,pdf']);
    expect([r.code, r.stdout, r.stderr]).toEqual([2, '', 'conformance: --reports: unknown report pdf (choose from summary, traceability, junit, allure, html)\n']);
  });
});
