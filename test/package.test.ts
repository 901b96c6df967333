// The tool as its users get it: `npm pack`, then in an empty directory `npm install ./that.tgz` and
// `npx soap-json-conformance …`. The package ships compiled JavaScript and runs without tsx or
// TypeScript; it checks the embedded reference and a given base URL, exits 0/1/2 as documented, and
// writes every report. It carries every path the README lists for installed users, and exports the
// contract's types to a consumer's compiler.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { FAULTS } from '../lib/reference/variants.js';
import { ALLURE_MISSING, ALLURE_VERSION } from '../lib/reporting/html.js';
import { useReference } from './helpers/reference.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
/** The paths in the first column of README's "What the installed package carries" table. */
const INSTALLED_PATHS = (() => {
  const section = /^### What the installed package carries\n([\s\S]*?)^#/m.exec(README)?.[1] ?? '';
  return [...section.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1]!);
})();
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

interface Ran { code: number; stdout: string; stderr: string }
const sh = (cmd: string, args: string[], cwd: string, timeout = 240_000): Promise<Ran> => new Promise((resolve) => {
  execFile(cmd, args, { cwd, timeout, maxBuffer: 32 * 1024 * 1024, env: { ...process.env, BASE_URL: '', QUIET: '1', npm_config_fund: 'false', npm_config_audit: 'false' } }, (error, stdout, stderr) =>
    resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }));
});

const faulty = useReference({ variants: FAULTS.filter((f) => f.name === 'json-guid-dashed-at-depth') });
let home: string;
/** The command npx runs: the installed package's bin link (npx itself may add its own npm warnings
 *  to stderr on some machines, which would muddle the checks on the command's one-line errors). */
const npx = (args: string[]) => sh(join(home, 'node_modules', '.bin', 'soap-json-conformance'), args, home);

beforeAll(async () => {
  const packed = mkdtempSync(join(tmpdir(), 'packed-'));
  // --ignore-scripts: `prepack` would rebuild dist/ while other tests run from it; npm test built it.
  const pack = await sh('npm', ['pack', '--ignore-scripts', '--pack-destination', packed], ROOT);
  expect(pack.code, pack.stderr).toBe(0);
  const tarball = join(packed, readdirSync(packed).find((f) => f.endsWith('.tgz'))!);
  home = mkdtempSync(join(tmpdir(), 'installed-'));
  writeFileSync(join(home, 'package.json'), '{"name":"a-user-project","version":"1.0.0","private":true}\n');
  // The npm cache already holds the dependencies (npm ci filled it): --prefer-offline reuses them.
  const install = await sh('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball], home);
  expect(install.code, install.stderr).toBe(0);
}, 300_000);

describe('installed from its tarball', () => {
  it('ships compiled JavaScript, and needs neither tsx nor TypeScript to run', () => {
    const pkg = join(home, 'node_modules', 'soap-json-conformance');
    expect(existsSync(join(pkg, 'dist', 'lib', 'cli', 'main.js'))).toBe(true);
    expect(existsSync(join(pkg, 'lib'))).toBe(false);
    expect(existsSync(join(home, 'node_modules', 'tsx'))).toBe(false);
    expect(existsSync(join(home, 'node_modules', 'typescript'))).toBe(false);
    // The Allure 3 CLI is an optional peer: not installed unless the user adds it.
    expect(existsSync(join(home, 'node_modules', 'allure'))).toBe(false);
  });

  it('carries every path the README names under "What the installed package carries", and no install script', () => {
    const pkg = join(home, 'node_modules', 'soap-json-conformance');
    expect(INSTALLED_PATHS.length).toBeGreaterThanOrEqual(17);
    // A directory counts only with files in it.
    expect(INSTALLED_PATHS.filter((p) => !existsSync(join(pkg, p)) || (p.endsWith('/') && readdirSync(join(pkg, p)).length === 0))).toEqual([]);
    expect(existsSync(join(pkg, 'fixtures', 'dotnet', 'golden'))).toBe(false);
    const scripts = (JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(Object.keys(scripts).filter((s) => /^(pre|post)?(install|prepare)$/.test(s))).toEqual([]);
  });

  it('exports the contract types: a consumer project type-checks against them, and a wrong type fails', async () => {
    const consumer = join(home, 'consumer');
    mkdirSync(consumer);
    // A Node project's libraries (ES2022, no DOM): the DOM's declarations were two thirds of the
    // compiler's time, and the contract's types must not need them.
    writeFileSync(join(consumer, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', lib: ['ES2022'], strict: true, noEmit: true, types: [] }, files: ['use.ts'] }));
    // Were the import unresolved or `any`, the expect-error line would be an error of its own.
    writeFileSync(join(consumer, 'use.ts'), [
      "import type { UserDetailsResponse } from 'soap-json-conformance';",
      'export const nameOf = (r: UserDetailsResponse): string | null | undefined => r.userName;',
      '// @ts-expect-error userName is a string',
      "export const wrong: UserDetailsResponse['userName'] = 42;",
      '',
    ].join('\n'));
    const tsc = await sh(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], consumer);
    expect([tsc.code, tsc.stdout]).toEqual([0, '']);
  });

  it('the installed tree is the size and package count the README states', async () => {
    const stated = /\*\*(\d+) packages\s+and (\d+) MB of `node_modules`\*\*/.exec(README);
    expect(stated).not.toBeNull();
    const ls = await sh('npm', ['ls', '--all', '--parseable'], home);
    expect(ls.stdout.trim().split('\n').length - 1).toBe(Number(stated![1])); // less the project itself
    const du = await sh('du', ['-sm', join(home, 'node_modules')], home);
    // Block sizes differ between file systems: within a tenth.
    expect(Math.abs(Number.parseInt(du.stdout, 10) - Number(stated![2]))).toBeLessThanOrEqual(Number(stated![2]) / 10);
  });

  it('--version and --help, through npx as a user would', async () => {
    const viaNpx = await sh('npx', ['--no-install', 'soap-json-conformance', '--version'], home);
    expect([viaNpx.code, viaNpx.stdout]).toEqual([0, `${VERSION}\n`]);
    expect(await npx(['--version'])).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
    const help = await npx(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^usage: soap-json-conformance \[check\] \[options\]/);
    expect(help.stdout).toMatch(/--base-url URL/);
    expect(help.stdout).toMatch(/exit codes: 0 every MUST check passed; 1 a MUST check failed; 2 the run could not proceed/);
    const reference = await npx(['reference', '--help']);
    expect(reference.stdout).toMatch(/--fault-rate R/);
    const report = await npx(['report', '--help']);
    expect(report.code).toBe(0);
    for (const h of [help, reference, report]) expect(h.stdout + h.stderr).not.toMatch(/npm run/);
  });

  it('checks the embedded reference: exit 0, every report but report.html written, and one line says why not that one', async () => {
    const dir = join(home, 'reports-embedded');
    const r = await npx(['--report-dir', dir, '--quiet']);
    expect([r.code, r.stderr]).toEqual([0, `note: ${ALLURE_MISSING}\n`]);
    expect(r.stdout).toMatch(/Verdict: CONFORMANT \(MUST 48 passed, 0 failed/);
    expect(existsSync(join(dir, 'report.html'))).toBe(false);
    for (const f of ['traceability.md', 'interface.md', 'summary.json', 'junit.xml', 'exchanges.json', 'replay.sh', 'allure-results']) expect(existsSync(join(dir, f)), f).toBe(true);
    // The clauses are quoted from the spec the package ships, and its copy is what the links reach.
    expect(readFileSync(join(dir, 'interface.md'), 'utf8')).toBe(readFileSync(join(ROOT, 'docs', 'spec', 'interface.md'), 'utf8'));
    expect(readFileSync(join(dir, 'traceability.md'), 'utf8')).toContain('A JSON route for this operation: not shown.');
    expect(readFileSync(join(dir, 'junit.xml'), 'utf8')).toMatch(/tests="62" failures="0"/);
  });

  it('checks a given base URL: exit 1 on a MUST failure, with the same reports', async () => {
    const dir = join(home, 'reports-faulty');
    const r = await npx(['check', '--base-url', faulty.url, '--report-dir', dir, '--quiet']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/✗ JSON-GUID \[MUST, 2 Types\]/);
    expect((JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as { verdict: string }).verdict).toBe('non-conformant');
  });

  it('a bad option or command: exit 2 in one line', async () => {
    expect(await npx(['--timeout', 'soon'])).toEqual({ code: 2, stdout: '', stderr: 'conformance: --timeout must be an integer from 1 to 600000, not "soon"\n' });
    const unknown = await npx(['verify']);
    expect([unknown.code, unknown.stderr.split('\n')[0]]).toEqual([2, 'soap-json-conformance: unknown command "verify"']);
  });

  // Last: it adds packages, which the size test above must not count.
  it('with the optional Allure CLI added to the project, report.html is written too', async () => {
    const peers = (JSON.parse(readFileSync(join(home, 'node_modules', 'soap-json-conformance', 'package.json'), 'utf8')) as { peerDependencies: Record<string, string> }).peerDependencies;
    expect(peers).toEqual({ allure: ALLURE_VERSION }); // the version the one-line note names
    const add = await sh('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', `allure@${ALLURE_VERSION}`], home);
    expect(add.code, add.stderr).toBe(0);
    const dir = join(home, 'reports-html');
    const r = await npx(['--reports', 'html', '--report-dir', dir, '--quiet']);
    expect([r.code, r.stderr]).toEqual([0, 'note: --reports html writes allure too (report.html is built from the Allure results)\n']);
    expect(readFileSync(join(dir, 'report.html'), 'utf8')).toMatch(/<h1[^>]*>CONFORMANT<\/h1>/);
  }, 300_000);
});
