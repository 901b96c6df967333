// `npm run conformance`: check a deployment (or the embedded reference) and gate on the result.
// Exit 0: every MUST check passed; 1: a MUST check failed; 2: the run could not proceed. Every
// error is one line on stderr, never a stack trace.
import { execFileSync } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { config as loadDotenv } from 'dotenv';
import { CATALOGUE } from '../checks/catalogue.js';
import { marker } from '../contract/sensitivity.js';
import { runConformance } from '../engine/run.js';
import { PROJECT_ROOT as ROOT } from '../paths.js';
import { startReference, type RunningReference } from '../reference/server.js';
import { Redactor } from '../reporting/redact.js';
import { consoleSummary } from '../reporting/console.js';
import { writeHtmlReport } from '../reporting/html.js';
import { buildReport, reportTitle, summaryOf, type Report } from '../reporting/report.js';
import { traceabilityMarkdown } from '../reporting/traceability.js';
import { parseConfig, USAGE, type Config } from './config.js';
import { presentWithVitest } from './vitest-run.js';

function harnessIdentity(): Report['harness'] {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };
  let commit: string | undefined;
  try {
    commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, timeout: 2000, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim() || undefined;
  } catch {
    commit = undefined; // not a git checkout
  }
  return { name: pkg.name, version: pkg.version, ...(commit ? { commit } : {}) };
}

const writeTo = (path: string, content: string): string => { writeFileSync(path, content); return path; };

const selected = (config: Config) =>
  CATALOGUE.filter((c) => (!config.only || config.only.includes(c.id)) && !config.skip?.includes(c.id));

/** The configuration as reports show it: header values and request secrets replaced by markers. */
const shownConfig = (config: Config, redactor: Redactor, baseUrl: string) => ({
  baseUrl,
  reportDir: config.reportDir,
  namespaces: config.namespaces,
  timeoutMs: config.timeoutMs,
  maxBodyBytes: config.maxBodyBytes,
  concurrency: config.concurrency,
  ...(config.ratePerSecond ? { ratePerSecond: config.ratePerSecond } : {}),
  ...(config.maxRequests ? { maxRequests: config.maxRequests } : {}),
  ...(config.ca ? { ca: config.ca.file } : {}),
  insecure: config.insecure,
  showPersonalData: config.showPersonalData,
  ...(config.only ? { only: config.only } : {}),
  ...(config.skip ? { skip: config.skip } : {}),
  headers: Object.fromEntries(Object.entries(config.headers).map(([k, v]) => [k, marker('secret header', v)])),
  requestValues: JSON.parse(redactor.text(JSON.stringify(config.values))) as unknown,
});

async function run(argv: readonly string[]): Promise<number> {
  if (existsSync('.env')) loadDotenv({ path: '.env', quiet: true }); // never overrides the environment
  const parsed = parseConfig(argv, process.env);
  if (parsed.ok === 'help') { process.stdout.write(`${USAGE}\n`); return 0; }
  if (!parsed.ok) { process.stderr.write(`conformance: ${parsed.error}\n`); return 2; }
  const config = parsed.config;
  const checks = selected(config);
  if (!checks.length) { process.stderr.write('conformance: --only and --skip leave no check to run\n'); return 2; }

  // The report directory is made (and proved writable) before the target sees a single request.
  const dir = resolve(config.reportDir);
  try {
    mkdirSync(dir, { recursive: true });
    accessSync(dir, constants.W_OK);
  } catch (e) {
    process.stderr.write(`conformance: cannot use the report directory ${dir}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}\n`);
    return 2;
  }

  let reference: RunningReference | undefined;
  try {
    if (!config.baseUrl) reference = await startReference({ namespaces: config.namespaces });
    const baseUrl = config.baseUrl ?? reference!.url;
    const description = reference ? 'embedded reference implementation' : 'deployment';
    const redactor = new Redactor({ showPersonalData: config.showPersonalData, secrets: Object.values(config.headers) });
    const warnings = [
      ...(config.insecure ? ['TLS certificate verification was OFF for this run (--insecure)'] : []),
      ...(config.showPersonalData ? ['personal data is shown in these reports (--show-personal-data): do not share them'] : []),
    ];
    for (const w of warnings) process.stdout.write(`  ! ${w}\n`);
    for (const name of Object.keys(config.headers)) redactor.secretHeader(name);
    process.stdout.write(`conformance: checking ${baseUrl} (${description}), ${checks.length} checks\n`);

    const { ca, ...settings } = config;
    const startupMs = Math.round(performance.now());
    const result = await runConformance({
      ...settings, baseUrl, checks, extraHeaders: config.headers,
      ...(ca ? { ca: ca.pem } : {}),
      useProxyEnv: !reference, // the embedded reference is on loopback: never through a proxy
    });
    process.stdout.write(`  sent ${result.exchanges.length} exchanges in ${((Date.parse(result.finishedAt) - Date.parse(result.startedAt)) / 1000).toFixed(2)} s\n`);
    const report = buildReport(result, {
      redactor, harness: harnessIdentity(), targetDescription: description, configuration: shownConfig(config, redactor, baseUrl), warnings, startupMs,
    });

    // Every output that can be written is written, and the verdict always reaches the console;
    // an output that fails is named on stderr and the run exits 2.
    const outputs: string[] = [];
    const problems: string[] = [];
    const attempt = async (what: string, make: () => Promise<string[]> | string[]) => {
      try {
        outputs.push(...(await make()));
      } catch (e) {
        problems.push(`cannot write ${what}: ${(e as Error).message.split('\n')[0]}`);
      }
    };
    const t = performance.now();
    let presented = false;
    await attempt('the Allure results and junit.xml', async () => {
      const written = Object.values(await presentWithVitest(report, dir));
      presented = true;
      return written;
    });
    const done = {
      ...report,
      timings: { ...report.timings, presentingMs: Math.round(performance.now() - t) },
      peakRss: { ...report.peakRss, runBytes: process.resourceUsage().maxRSS * 1024 },
    };
    await attempt('summary.json', () => [writeTo(join(dir, 'summary.json'), `${JSON.stringify(summaryOf(done), null, 2)}\n`)]);
    await attempt('traceability.md', () => [writeTo(join(dir, 'traceability.md'), traceabilityMarkdown(report))]);
    if (presented) await attempt('report.html', async () => [await writeHtmlReport(dir, reportTitle(report))]);
    const first = ['report.html', 'traceability.md', 'summary.json', 'junit.xml', 'allure-results'];
    const rank = (path: string) => first.findIndex((name) => path.endsWith(name));
    process.stdout.write(consoleSummary(report, outputs.sort((a, b) => rank(a) - rank(b))));
    if (problems.length) {
      for (const p of problems) process.stderr.write(`conformance: ${p}\n`);
      return 2;
    }
    if (report.verdict === 'unreachable') {
      process.stderr.write(`conformance: cannot reach ${report.target.baseUrl}: ${report.unreachable}\n`);
      return 2;
    }
    if (report.verdict === 'incomplete') {
      const skipped = report.checks.filter((c) => c.level === 'MUST' && c.status === 'skip');
      process.stderr.write(`conformance: run incomplete: ${skipped.length} MUST check(s) not evaluated (${skipped[0]!.id}: ${skipped[0]!.message})\n`);
      return 2;
    }
    return report.verdict === 'conformant' ? 0 : 1;
  } finally {
    await reference?.close();
  }
}

run(process.argv.slice(2))
  .catch((e: unknown) => {
    const err = e as NodeJS.ErrnoException;
    const what = err.code === 'EACCES' || err.code === 'EROFS' || err.code === 'ENOTDIR' ? `cannot write reports: ${err.message}` : `internal error: ${err.message ?? String(e)}`;
    process.stderr.write(`conformance: ${what.split('\n')[0]}\n`);
    return 2;
  })
  .then((code) => {
    process.exitCode = code;
    // Should anything still hold the event loop (a stuck socket), do not hang the pipeline.
    setTimeout(() => process.exit(code), 2000).unref();
  });
