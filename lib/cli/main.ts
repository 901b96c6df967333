// `npm run conformance`: check a deployment (or the embedded reference) and gate on the result.
// Exit 0: every MUST check passed; 1: a MUST check failed; 2: the run could not proceed. Every
// error is one line on stderr, never a stack trace.
import { randomInt } from 'node:crypto';
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { makeDirectory } from './make-directory.js';
import { resolve } from 'node:path';
import { CATALOGUE } from '../checks/catalogue.js';
import { runConformance } from '../engine/run.js';
import { JudgeWorkerFailure } from '../engine/judge-pool.js';
import { startReference, type RunningReference } from '../reference/server.js';
import { harnessIdentity } from './identity.js';
import { boundHeapGrowth, streamsExchanges } from '../engine/collect.js';
import type { GenerateOptions } from '../engine/generation.js';
import { displayLine } from '../reporting/display.js';
import { parseConfig, readDotenv, settingSource, shardOptions, usage, type Config } from './config.js';
import { openSession, selectedChecks, setupOf, unfed } from './session.js';
import { impliedReports, removedLine, removeEarlierRun, stoppedAtOnce } from './write-reports.js';
import { abortOnSignals } from './stopping.js';
import { errorLine } from './error-line.js';

/** --list-checks: the catalogue, a line per check (aligned columns), or JSON for machines. */
function catalogueListing(json: boolean): string {
  if (json) {
    return `${JSON.stringify(CATALOGUE.map(({ id, level, area, title, clause, requirement, interpretation }) => ({ id, level, area, title, clause, requirement, ...(interpretation ? { interpretation } : {}) })), null, 2)}\n`;
  }
  const [idWidth, areaWidth] = [Math.max(...CATALOGUE.map((c) => c.id.length)), Math.max(...CATALOGUE.map((c) => c.area.length))];
  return CATALOGUE.map((c) => `${c.id.padEnd(idWidth)}  ${c.level.padEnd(6)}  ${c.area.padEnd(areaWidth)}  ${c.title}\n`).join('');
}

/** Whether a recorded URL is under the base URL: same scheme, host and port, the path beneath it. */
const underBase = (url: string, base: string): boolean => {
  try {
    const [u, b] = [new URL(url), new URL(base)];
    const prefix = b.pathname.replace(/\/$/, '').toLowerCase();
    return u.protocol === b.protocol && u.host === b.host && (u.pathname.toLowerCase() === prefix || u.pathname.toLowerCase().startsWith(`${prefix}/`));
  } catch {
    return false;
  }
};

/** --har: the recordings' entries judged as traffic, one file after another (nothing is sent, no
 *  reference is started). With several files, an exchange's id names its file: har2.17. */
async function judgeRecording(config: Config, files: readonly string[], dir: string): Promise<number> {
  const { HarProblem, harExchanges, harName, LeftOut } = await import('../traffic/har.js');
  // The checks any recorded exchange can feed, request checks included.
  const checks = selectedChecks(config);
  const named = files.map(harName).join(', ');
  const session = openSession(setupOf(config, dir, { baseUrl: config.baseUrl ?? `recording ${named}`, description: 'recorded traffic (HAR)' }));
  session.announce();
  session.say(`conformance: judging the recording${files.length > 1 ? 's' : ''} ${displayLine(named)}${config.baseUrl ? ` (entries under ${displayLine(config.baseUrl)})` : ''}, ${checks.length} checks; nothing is sent`);
  let outside = 0;
  /** Exchanges the run took (judged, or left out as outside the base URL), and the file being read:
   *  a stopped run's reports say how far it got. */
  let taken = 0;
  let reading = named;
  const left = new LeftOut();
  const stop = abortOnSignals('conformance', 'nothing more is read; the reports follow the entries read', stoppedAtOnce(dir, 'conformance'));
  async function* recorded() {
    for (const [i, file] of files.entries()) {
      reading = harName(file);
      for await (const ex of harExchanges(file, config.maxBodyBytes, files.length > 1 ? `har${i + 1}` : 'har', left.add, stop)) {
        if (config.baseUrl && !underBase(ex.request.url, config.baseUrl)) { outside++; taken++; continue; }
        yield ex;
        taken++; // asked for the next one: this one was taken
      }
    }
  }
  const { ca: _ca, generate: _g, ...settings } = config;
  let result;
  try {
    result = await runConformance({
      ...settings, baseUrl: session.target.baseUrl, checks, extraHeaders: {}, probes: false, mode: 'traffic', recorded: recorded(), ...session.engine(), ...session.judging(config.jobs), stop,
    });
  } catch (e) {
    if (e instanceof HarProblem) { errorLine(`conformance: ${e.message}`); return 2; }
    throw e;
  }
  if (outside) session.warn(`${outside} entr${outside === 1 ? 'y' : 'ies'} recorded against other hosts or paths than ${config.baseUrl!} were left out`);
  for (const w of left.warnings()) session.warn(w);
  if (result.stopped) session.warn(`stopped (${result.stopped}) while reading ${reading}, after ${taken} recorded exchange(s): the rest was not read and the run is incomplete`);
  session.say(`  judged ${result.counts.exchanges} recorded exchanges`);
  return session.finish(result);
}

const isDirectory = (path: string): boolean => {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false; // none, or a file on its path (ENOTDIR)
  }
};

/** The report directory once accepted, and when: a run that then ends without its reports must not
 *  leave an earlier run's there, stating another verdict than its exit code. */
let accepted: { readonly dir: string; readonly since: number } | undefined;
/** The report directory the configuration names, before it is accepted: a run refused then (a bad
 *  accounts line, --only left empty) exits 2, and an earlier run's outputs there would state another verdict. */
let named: { readonly dir: string; readonly since: number } | undefined;

async function run(argv: readonly string[]): Promise<number> {
  /** The keys .env supplied (the environment had not set them), with their lines. */
  const fromDotenv = new Map<string, number | undefined>();
  if (existsSync('.env')) {
    const dotenv = readDotenv('.env');
    if (dotenv.problem) { errorLine(`conformance: ${dotenv.problem}`); return 2; }
    // Never overrides the environment, but an empty variable is unset to the run (parseOptions): .env's value
    // stands (dotenv's config() would keep the empty one, and an exported BASE_URL= would hide .env's target).
    for (const [key, value] of Object.entries(dotenv.values)) if (process.env[key] === undefined || process.env[key] === '') { process.env[key] = value; fromDotenv.set(key, dotenv.lineOf.get(key)); }
  }
  const parsed = parseConfig(argv, process.env);
  if (parsed.ok === 'help') { process.stdout.write(`${usage()}\n`); return 0; }
  if (parsed.ok === 'version') { process.stdout.write(`${harnessIdentity().version}\n`); return 0; }
  if (parsed.ok === 'list-checks') { process.stdout.write(catalogueListing(parsed.json)); return 0; }
  if (!parsed.ok) { errorLine(`conformance: ${parsed.error}${settingSource(parsed.error, argv, process.env, fromDotenv)}`); return 2; }
  const config = parsed.config;
  named = { dir: resolve(config.reportDir), since: Date.now() };
  const checks = selectedChecks(config);
  const why = unfed(config);
  if (why) { errorLine(`conformance: --only names checks this run cannot feed: ${why}`); return 2; }
  if (!checks.length) { process.stderr.write('conformance: --only and --skip leave no check to run\n'); return 2; }
  // Under --fail-on must nothing else decides the verdict: without a MUST check it would say CONFORMANT (exit 0) of no check.
  if (config.failOn === 'must' && !checks.some((c) => c.level === 'MUST')) {
    process.stderr.write('conformance: --only and --skip leave no MUST check, which alone decide the verdict under --fail-on must (--fail-on should gates on the SHOULD checks left)\n');
    return 2;
  }
  for (const note of impliedReports(config.reports)) errorLine(`note: ${note}`);

  // Every account line is read and checked before anything is sent: a bad line stops the run here.
  let cases: number | undefined;
  // Each mode's modules are loaded by that mode: a run of the probes starts without them.
  const accountsFile = config.accounts ? await import('../engine/accounts.js') : undefined;
  if (config.accounts) {
    const valid = await accountsFile!.validateAccounts(config.accounts);
    if ('error' in valid) { errorLine(`conformance: ${valid.error}`); return 2; }
    cases = config.shard ? Math.ceil((valid.cases - (config.shard.index - 1)) / config.shard.count) : valid.cases;
  }
  if (streamsExchanges(config)) boundHeapGrowth(); // a run of many exchanges stays at the memory it holds, not four times it

  // The report directory is made (and proved writable) before the target sees a single request.
  const dir = resolve(config.reportDir);
  const since = Date.now();
  try {
    makeDirectory(dir);
    accessSync(dir, constants.W_OK);
  } catch (e) {
    errorLine(`conformance: cannot use the report directory ${dir}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    return 2;
  }
  accepted = { dir, since };

  if (config.proxy) return (await import('./proxy-run.js')).runProxy(config, dir, checks);
  if (config.legacyUrl) return (await import('./differential.js')).differentialRun(config, config.legacyUrl, checks, dir, cases);
  if (config.har) return judgeRecording(config, config.har, dir);

  let reference: RunningReference | undefined;
  try {
    if (!config.baseUrl) reference = await startReference({ namespaces: config.namespaces });
    const accounts = config.accounts;
    const baseUrl = config.baseUrl ?? reference!.url;
    const session = openSession(setupOf(config, dir, { baseUrl, description: reference ? 'embedded reference implementation' : 'deployment' }, cases));
    session.announce();
    const shardText = config.shard ? `, shard ${config.shard.index}/${config.shard.count}` : '';
    session.say(`conformance: checking ${displayLine(baseUrl)} (${session.target.description}), ${checks.length} checks${cases !== undefined ? `, ${cases} accounts${shardText}` : ''}`);

    // Generated requests, like the probes, are sent by the first shard only: merged, the shards are one run.
    const generate: GenerateOptions | undefined = config.generate && (!config.shard || config.shard.index === 1)
      ? { count: config.generate.count, seed: config.generate.seed ?? randomInt(0, 2_147_483_647) } : undefined;
    if (generate) session.say(`  generating ${generate.count} requests per operation from the contract, seed ${generate.seed}`);
    const { ca, generate: _g, ...settings } = config;
    const stop = abortOnSignals('conformance', 'nothing more is sent; the reports follow the requests in flight', stoppedAtOnce(dir, 'conformance'));
    const result = await runConformance({
      ...settings, baseUrl, checks, extraHeaders: config.headers,
      ...(ca ? { ca: ca.pem } : {}),
      ...(accounts ? { cases: accountsFile!.accountRequests(accounts, config.headers, config.shard) } : {}),
      ...(generate ? { generate } : {}),
      ...shardOptions(config),
      useProxyEnv: !reference, // the embedded reference is on loopback: never through a proxy
      ...session.engine(), ...session.judging(config.jobs), stop,
    });
    session.say(`  judged ${result.counts.exchanges} exchanges in ${((Date.parse(result.finishedAt) - Date.parse(result.startedAt)) / 1000).toFixed(2)} s`);
    const unsent = result.counts.notSent?.case;
    if (result.stopped) session.warn(`stopped (${result.stopped}) before every request was sent: the run is incomplete`);
    else if (unsent) session.warn(`${unsent} account request(s) were not sent (the request cap, --max-requests, was reached): the run is incomplete`);
    // Every account checked must have been judged: fewer means the file changed under the run.
    const lost = cases !== undefined && !result.stopped && result.counts.cases !== cases
      ? [`${config.accounts!} gave ${result.counts.cases} of the ${cases} accounts it held when it was checked (was it changed during the run?)`] : [];
    return await session.finish(result, { ...(generate ? { generate } : {}), problems: lost });
  } finally {
    await reference?.close();
  }
}

run(process.argv.slice(2))
  .catch((e: unknown) => {
    const err = e as NodeJS.ErrnoException;
    const what = err.code === 'LISTEN' || e instanceof JudgeWorkerFailure ? err.message : err.code === 'EACCES' || err.code === 'EROFS' || err.code === 'ENOTDIR' ? `cannot write reports: ${err.message}` : `internal error: ${err.message ?? String(e)}`;
    errorLine(`conformance: ${what.split('\n')[0]}`);
    return 2;
  })
  .then((code) => {
    // A directory named but never made, or no directory (a file), holds no earlier run's outputs.
    const at = accepted ?? (named && isDirectory(named.dir) ? named : undefined);
    if (code === 2 && at) {
      const { removed, problems } = removeEarlierRun(at.dir, at.since);
      if (removed.length) process.stdout.write(removedLine(removed));
      for (const p of problems) errorLine(`conformance: ${p}`);
    }
    process.exitCode = code;
    // Should anything still hold the event loop (a stuck socket), do not hang the pipeline.
    setTimeout(() => process.exit(code), 2000).unref();
  });
