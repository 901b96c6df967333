// The small things a user expects of a CLI: a hint for a mistyped option, the catalogue on request,
// help that fits a terminal, a busy port named in one line, and usage lines that name the command the
// user typed (npx when installed, npm run in a clone).
import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CATALOGUE } from '../lib/checks/catalogue.js';

const ROOT = join(import.meta.dirname, '..');

function run(script: 'bin/run.mjs' | 'bin/cli.mjs', args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => execFile(process.execPath, [script, ...args], { cwd: ROOT, timeout: 60_000, maxBuffer: 1 << 24 },
    (e, stdout, stderr) => resolve({ code: e ? Number(e.code) : 0, stdout, stderr })));
}

describe('the CLI', () => {
  it('answers a mistyped option with one line, "did you mean" the nearest, exit 2', async () => {
    const r = await run('bin/run.mjs', ['cli/main', '--bse-url', 'http://x']);
    expect(r).toMatchObject({ code: 2, stdout: '', stderr: 'conformance: unknown option --bse-url; did you mean --base-url?\n' });
    const far = await run('bin/run.mjs', ['cli/main', '--zzzzzz']);
    expect(far.stderr).toBe('conformance: unknown option --zzzzzz (--help lists the options)\n');
    const reference = await run('bin/run.mjs', ['cli/reference', '--prot', '1']);
    expect(reference.stderr.split('\n')[0]).toBe('reference: unknown option --prot; did you mean --port?');
  });

  it('--list-checks prints every check of the catalogue once (id, level, area, title); --json the same as JSON', async () => {
    const text = await run('bin/run.mjs', ['cli/main', '--list-checks']);
    expect(text.code).toBe(0);
    const lines = text.stdout.trimEnd().split('\n');
    expect(lines.map((l) => l.split(/\s+/)[0])).toEqual(CATALOGUE.map((c) => c.id));
    for (const [i, c] of CATALOGUE.entries()) expect(lines[i]!.split(/\s{2,}/)).toEqual([c.id, c.level, c.area, c.title]);
    const json = await run('bin/run.mjs', ['cli/main', '--list-checks', '--json']);
    const listed = JSON.parse(json.stdout) as { id: string; level: string; area: string; title: string; clause: string }[];
    expect(listed.map(({ id, level, area, title, clause }) => [id, level, area, title, clause])).toEqual(CATALOGUE.map((c) => [c.id, c.level, c.area, c.title, c.clause]));
    expect(await run('bin/run.mjs', ['cli/main', '--json'])).toMatchObject({ code: 2, stderr: 'conformance: --json goes with --list-checks\n' });
  });

  it('wraps --help at 100 columns when not a terminal, for every command', async () => {
    for (const program of ['cli/main', 'cli/reference', 'cli/report']) {
      const r = await run('bin/run.mjs', [program, '--help']);
      expect(r.code).toBe(0);
      const longest = Math.max(...r.stdout.split('\n').map((l) => l.length));
      expect(longest, program).toBeLessThanOrEqual(100);
      expect(longest, program).toBeGreaterThan(80); // wrapped, not cut short
    }
  });

  it('names the address and port it cannot listen on, in one line with no usage after it', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as { port: number }).port;
    try {
      const r = await run('bin/run.mjs', ['cli/reference', '--port', String(port)]);
      expect(r).toMatchObject({ code: 2, stderr: `reference: cannot listen on 127.0.0.1:${port}: the address is in use by another process (EADDRINUSE)\n` });
      const proxy = await run('bin/run.mjs', ['cli/main', '--proxy', String(port), '--base-url', 'http://127.0.0.1:9', '--report-dir', mkdtempSync(join(tmpdir(), 'cli-usage-'))]);
      expect(proxy).toMatchObject({ code: 2, stderr: `conformance: cannot listen on 127.0.0.1:${port}: the address is in use by another process (EADDRINUSE)\n` });
    } finally {
      busy.close();
    }
  });

  it('usage names the command typed: npm run in a clone, npx soap-json-conformance when installed', async () => {
    const clone = await Promise.all(['cli/main', 'cli/reference', 'cli/report'].map((p) => run('bin/run.mjs', [p, '--help'])));
    expect(clone.map((r) => r.stdout.split('\n')[0])).toEqual([
      'usage: npm run conformance -- [options]', 'usage: npm run reference -- [options]', 'usage: npm run report -- [--report-dir DIR]',
    ]);
    const installed = await Promise.all([[], ['reference'], ['report']].map((c) => run('bin/cli.mjs', [...c, '--help'])));
    for (const r of installed) expect(r.stdout).not.toContain('npm run');
    expect(installed.map((r) => r.stdout.split('\n').find((l) => l.startsWith('usage: npx')))).toEqual([
      'usage: npx soap-json-conformance [options]', 'usage: npx soap-json-conformance reference [options]', 'usage: npx soap-json-conformance report [--report-dir DIR]',
    ]);
    expect(installed[0]!.stdout.replace(/\s+/g, ' ')).toContain('merge with npx soap-json-conformance report --merge');
  });
});
