// Configuration for a run, from flags, then the environment, then .env (dotenv), then defaults, all
// declared in one option table (options.ts). Every problem is one line naming the setting; the
// caller exits 2 with it.
import { isUtf8 } from 'node:buffer';
import { availableParallelism } from 'node:os';
import { checkById } from '../checks/catalogue.js';
import { exampleValue } from '../contract/examples.js';
import { DEFAULT_NAMESPACES, type ServiceNamespaces } from '../contract/namespaces.js';
import { envName, JSON_OPERATIONS } from '../contract/operations.js';
import { valueFromText } from '../contract/values.js';
import type { JsonObject } from '../json/value.js';
import { firstIllFormed } from '../json/utf8.js';
import { DEFAULT_CONCURRENCY } from '../engine/run.js';
import { DEFAULT_MAX_BODY_BYTES, DEFAULT_TIMEOUT_MS, PHASES_PER_EXCHANGE } from '../http/send.js';
import { parse as parseDotenv } from 'dotenv';
import { commandOf, distance, envNames, helpWidth, parseOptions, usageOf, wrap, type Env, type OptionTable } from '../options.js';
import { shardWarning } from '../reporting/merge.js';
import type { Gate, JudgedSides } from '../reporting/verdict.js';
import { boundedBytes, UnreadableFile } from './bounded-file.js';
import { REPORT_NAMES, type ReportName } from './write-reports.js';

/** --reports (of a run, a rebuild or a merge): the outputs named, all when none; or why not. */
export function reportsChosen(names: readonly string[] | undefined): ReadonlySet<ReportName> | string {
  const unknown = (names ?? []).filter((r) => !(REPORT_NAMES as readonly string[]).includes(r));
  if (unknown.length) return `--reports: unknown report ${unknown.join(', ')} (choose from ${REPORT_NAMES.join(', ')})`;
  return new Set((names ?? REPORT_NAMES) as readonly ReportName[]);
}

/** Generated cases per operation that find each of the reference's input-dependent faults (the
 *  README's recommended N for --generate; tests hold the generator to it). */
export const DEFAULT_GENERATED_CASES = 100;

/** --jobs when not given: a judging worker per core but one from three cores on; none on two, where
 *  the target or the load generator takes the other core: a worker there judged no faster (a
 *  20 000-account run against a local reference, 3 interleaved pairs: 3 947 to 4 154 exchanges/s
 *  against 4 012 to 4 347 on the main thread alone) for 1.3 more CPU-s and 50 MB more. */
export const defaultJobs = (): number => (availableParallelism() >= 3 ? availableParallelism() - 1 : 0);
/** Exchanges the main thread judges before the default workers start (a run of fewer never starts
 *  them): starting one costs about as much CPU as judging a few hundred exchanges. */
export const JUDGED_BEFORE_WORKERS = 1000;

/** Every option of `npm run conformance`, once. */
export const CONFORMANCE_OPTIONS = {
  'base-url': { kind: 'string', arg: 'URL', env: 'BASE_URL', help: 'the deployment to check; none: the embedded reference' },
  'legacy-url': { kind: 'string', arg: 'URL', env: 'LEGACY_URL', help: 'differential run: send every request to this legacy deployment too (before and after the candidate) and compare the answers value by value; differences exit 1' },
  'report-dir': { kind: 'string', arg: 'DIR', env: 'REPORT_DIR', help: 'where reports go', defaultText: 'reports' },
  accounts: { kind: 'string', arg: 'FILE', env: 'ACCOUNTS_FILE', help: 'one case per line (JSON Lines, or CSV with Request.field headers): each account\'s requests are sent and judged' },
  har: { kind: 'repeatable', arg: 'FILE', env: 'HAR_FILE', help: 'judge the exchanges HAR recordings hold (browsers, proxies, HTTP clients write them), - for standard input; nothing is sent. With --base-url, only the entries recorded against it' },
  proxy: { kind: 'string', arg: '[HOST:]PORT', env: 'PROXY_LISTEN', help: 'listen here as a reverse proxy to --base-url: forward every request and answer unchanged, judge each exchange, print findings as they happen, rewrite the reports every few seconds and on Ctrl-C' },
  shard: { kind: 'string', arg: 'I/N', env: 'SHARD', help: `take every N-th account, starting with the I-th (CI matrices); merge with ${commandOf('report')} --merge` },
  'run-id': { kind: 'string', arg: 'ID', env: 'RUN_ID', help: 'the run this report belongs to, so a merge takes only shards of one run (default: the CI run, e.g. GITHUB_RUN_ID; else derived from the configuration and inputs)' },
  generate: { kind: 'integer', arg: 'N', env: 'GENERATE', min: 1, max: 100_000, help: `also send N requests per operation generated from the contract, valid and invalid, and shrink every failure (${DEFAULT_GENERATED_CASES} is a good start)` },
  seed: { kind: 'integer', arg: 'S', env: 'SEED', min: 0, max: 2_147_483_647, help: 'the seed of --generate: the same seed sends the same requests again', defaultText: 'a random one, stated in every report' },
  only: { kind: 'list', arg: 'ID,…', help: 'run only these checks' },
  skip: { kind: 'list', arg: 'ID,…', help: 'do not run these checks' },
  header: { kind: 'repeatable', arg: '"Name: v"', help: 'send this header with every request (values are redacted everywhere)', shown: 'no' },
  timeout: { kind: 'integer', arg: 'MS', env: 'TIMEOUT_MS', min: 1, max: 600_000, defaultText: String(DEFAULT_TIMEOUT_MS), help: `limit for connecting, for the response headers and for the body; an exchange, retries included, takes at most ${PHASES_PER_EXCHANGE} times this; with --proxy, a client that sends its request or reads its answer slower than this loses that exchange's judging once another needs the room` },
  'max-body-mib': { kind: 'integer', arg: 'N', env: 'MAX_BODY_MIB', min: 1, max: 1024, defaultText: String(DEFAULT_MAX_BODY_BYTES / 1024 / 1024), help: 'cut off response bodies larger than N MiB' },
  concurrency: { kind: 'integer', arg: 'N', env: 'CONCURRENCY', min: 1, max: 256, defaultText: String(DEFAULT_CONCURRENCY), help: 'exchanges in flight at once' },
  jobs: { kind: 'integer', arg: 'N', env: 'JOBS', min: 0, max: 64, defaultText: `cores - 1 from three cores (none on two), started after the first ${JUDGED_BEFORE_WORKERS} exchanges`, help: 'worker threads that judge --accounts, --har and --generate runs while the main thread sends or reads; 0: the main thread judges. The reports are the same whatever N' },
  rate: { kind: 'integer', arg: 'N', env: 'RATE', min: 1, max: 10_000, help: 'at most N requests per second (production targets)' },
  'max-requests': { kind: 'integer', arg: 'N', env: 'MAX_REQUESTS', min: 1, max: 1_000_000_000, help: 'at most N requests in the run; checks on unsent exchanges are not evaluated' },
  ca: { kind: 'string', arg: 'FILE', env: 'CA_FILE', help: 'trust this PEM CA certificate too (private PKI)' },
  insecure: { kind: 'boolean', help: 'do not verify TLS certificates (stated in every report)' },
  'show-personal-data': { kind: 'boolean', help: 'show personal-data fields in reports (local debugging; credentials stay hidden)' },
  judge: { kind: 'string', arg: 'server|client|both', env: 'JUDGE_SIDES', defaultText: 'both', help: 'with --har or --proxy: judge the server\'s answers, the clients\' requests, or both' },
  'judge-priority': { kind: 'string', arg: 'idle|normal', env: 'JUDGE_PRIORITY', defaultText: 'idle', help: 'with --proxy: the judge\'s CPU priority. idle: it takes only CPU the traffic leaves, and while the traffic is heavy at most 3% of the time (on a busy machine much may go unjudged and the reports come late); normal: it shares the CPU with the traffic (CI, where every exchange should be judged)' },
  'fail-on': { kind: 'string', arg: 'must|should', env: 'FAIL_ON', defaultText: 'must', help: 'what fails the run (exit 1): a failed MUST check or a difference from the legacy, or a failed SHOULD check too' },
  quiet: { kind: 'boolean', env: 'QUIET', help: 'no progress lines while the run goes on' },
  'list-checks': { kind: 'boolean', help: 'print the catalogue (id, level, area, title), one check a line, and exit', shown: 'no' },
  json: { kind: 'boolean', help: 'with --list-checks: the catalogue as JSON (id, level, area, title, clause, requirement, interpretation)', shown: 'no' },
  reports: { kind: 'list', arg: 'NAME,…', env: 'REPORTS', defaultText: 'all', help: `write only these reports: ${REPORT_NAMES.join(', ')} (summary: summary.json and exchanges.json; html writes allure too)` },
  help: { kind: 'boolean', short: 'h', help: 'this text', shown: 'no' },
  version: { kind: 'boolean', help: 'the harness\'s version', shown: 'no' },
} as const satisfies OptionTable;

export interface Config {
  /** Undefined: check the embedded reference. */
  readonly baseUrl?: string;
  /** --legacy-url: a differential run against this legacy deployment (cli/differential.ts). */
  readonly legacyUrl?: string;
  readonly reportDir: string;
  readonly namespaces: ServiceNamespaces;
  /** Request record values per JSON operation key (the probes'). */
  readonly values: Readonly<Record<string, JsonObject>>;
  /** User-supplied headers (their values are secrets). */
  readonly headers: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  readonly maxBodyBytes: number;
  readonly concurrency: number;
  /** --jobs: worker threads that judge (0: the main thread); absent: defaultJobs(), started late. */
  readonly jobs?: number;
  readonly maxRequests?: number;
  readonly ratePerSecond?: number;
  /** PEM text of --ca, and where it came from. */
  readonly ca?: { readonly file: string; readonly pem: string };
  readonly insecure: boolean;
  readonly showPersonalData: boolean;
  readonly only?: readonly string[];
  readonly skip?: readonly string[];
  readonly accounts?: string;
  /** 1-based shard index and count. */
  readonly shard?: { readonly index: number; readonly count: number };
  readonly quiet: boolean;
  /** --fail-on: what fails the run. */
  readonly failOn: Gate;
  /** --judge: the sides of recorded or proxied traffic judged. */
  readonly judge: JudgedSides;
  /** --judge-priority: the proxy's judge at the lowest CPU priority, or at the run's own. */
  readonly judgePriority: 'idle' | 'normal';
  /** --reports: the outputs to write (all when not given). */
  readonly reports: ReadonlySet<ReportName>;
  /** --har: recordings to judge, in order ("-": standard input); nothing is sent. */
  readonly har?: readonly string[];
  /** --proxy: where the validating proxy listens (it forwards to baseUrl). */
  readonly proxy?: { readonly host: string; readonly port: number };
  /** --generate: requests per operation, and the seed when one was given (else the run picks one). */
  readonly generate?: { readonly count: number; readonly seed?: number };
  /** The options as given, for the shown configuration. */
  readonly given: Readonly<Record<string, unknown>>;
}

export type ConfigResult = { ok: true; config: Config } | { ok: false; error: string } | { ok: 'help' } | { ok: 'version' } | { ok: 'list-checks'; json: boolean };

/** The request-value variables (LOGIN_USER_NAME, …), one per field of every JSON request. */
export const REQUEST_VALUE_ENV = JSON_OPERATIONS.flatMap((op) => op.request.fields.map((f) => envName(op.envPrefix, f)));
export const NAMESPACE_ENV = { request: 'SERVICE_REQUEST_NAMESPACE', login: 'SERVICE_LOGIN_NAMESPACE' } as const;

export const usage = (): string => `usage: ${commandOf('conformance')} [options]

${usageOf(CONFORMANCE_OPTIONS)}

${wrap(`environment (and .env) also: ${NAMESPACE_ENV.request}, ${NAMESPACE_ENV.login}, HTTPS_PROXY / HTTP_PROXY / NO_PROXY, and the request values: ${REQUEST_VALUE_ENV.join(', ')}`, helpWidth()).join('\n')}
exit codes: 0 every MUST check passed; 1 a MUST check failed; 2 the run could not proceed`;

const RESERVED_HEADERS = new Set(['content-type', 'content-length', 'host', 'soapaction', 'accept', 'transfer-encoding', 'connection']);
/** Fields of a connection, not of a request, that the harness's HTTP client (undici) refuses to send:
 *  every request would fail to be sent, and the run would blame the target for it. */
const UNSENDABLE_HEADERS = new Set(['keep-alive', 'upgrade', 'expect']);

function parseHeaders(list: readonly string[]): Record<string, string> | string {
  const out: Record<string, string> = {};
  for (const [i, h] of list.entries()) {
    const m = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):\s?(.*)$/.exec(h);
    // Nothing of a malformed header is echoed: "Authorization=Bearer …" is the secret itself.
    if (!m) return `--header number ${i + 1} must look like "Name: value" (a header name, a colon, the value); it is not shown, as it may hold a secret`;
    const name = m[1]!.toLowerCase();
    if (RESERVED_HEADERS.has(name)) return `--header ${m[1]} is set by the harness per request and cannot be overridden`;
    if (UNSENDABLE_HEADERS.has(name)) return `--header ${m[1]} is a field of the connection that the harness's HTTP client does not send: every request would fail, and the run would blame the target`;
    if (/[\r\n]/.test(m[2]!)) return `--header ${m[1]} has a line break in its value`;
    // What an HTTP client can send (RFC 9110 5.5: tab, visible ASCII, obs-text bytes): any other
    // would make every request fail to be sent, and the run blame the target for it. Where, not which:
    // the value is a secret.
    const odd = /[^\t\x20-\x7e\x80-\xff]/.exec(m[2]!);
    if (odd) return `--header ${m[1]} has a control character or one past U+00FF, which no header value can hold, at character ${odd.index + 1} of its value`;
    out[name] = m[2]!;
  }
  return out;
}

function checkIds(flag: string, ids: readonly string[] | undefined): string | undefined {
  const unknown = ids?.filter((id) => !checkById.has(id)) ?? [];
  return unknown.length ? `--${flag}: unknown check id ${unknown.join(', ')} (the ids are listed in summary.json and docs/checks.md)` : undefined;
}

function baseUrlOf(text: string | undefined): string | undefined | { error: string } {
  if (text === undefined || text === '') return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { error: `--base-url: the base URL ${JSON.stringify(text)} is not a URL` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { error: `--base-url: the base URL must be http or https, not ${url.protocol}` };
  if (url.username || url.password) return { error: '--base-url: the base URL carries credentials; pass them with --header "Authorization: …" so reports can redact them' };
  if (url.search || url.hash) return { error: '--base-url: the base URL must not have a query or fragment' };
  return url.href.replace(/\/+$/, '');
}

/** --proxy [HOST:]PORT: where to listen (HOST defaults to loopback: a proxy is not opened to the network unasked). */
function listenOf(text: string | undefined): Config['proxy'] | string | undefined {
  if (text === undefined) return undefined;
  const m = /^(?:(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):)?(\d{1,5})$/.exec(text.trim());
  const port = Number(m?.[2]);
  return m && port <= 65535 ? { host: (m[1] ?? '127.0.0.1').replace(/^\[|\]$/g, ''), port } : `--proxy must be PORT or HOST:PORT (0 picks a free port), not ${JSON.stringify(text.slice(0, 60))}`;
}

function shardOf(text: string | undefined): Config['shard'] | string | undefined {
  if (text === undefined) return undefined;
  const m = /^(\d+)\/(\d+)$/.exec(text);
  const [index, count] = m ? [Number(m[1]), Number(m[2])] : [0, 0];
  return m && count >= 1 && index >= 1 && index <= count ? { index, count } : `--shard must be I/N with 1 <= I <= N, not ${JSON.stringify(text)}`;
}

export function parseConfig(argv: readonly string[], env: Env): ConfigResult {
  const parsed = parseOptions(CONFORMANCE_OPTIONS, argv, env);
  if (!parsed.ok) return parsed;
  const v = parsed.values;
  if (v.help) return { ok: 'help' };
  if (v.version) return { ok: 'version' };
  if (v['list-checks']) return { ok: 'list-checks', json: v.json === true };
  if (v.json) return { ok: false, error: '--json goes with --list-checks' };

  // An empty flag (an unset variable in `--base-url "$TARGET"`) is no choice: the run would judge
  // the embedded reference, or send no accounts, and pass. (An empty environment value is unset.)
  for (const [flag, what] of [['base-url', 'the deployment to check (leave the option out to check the embedded reference)'], ['legacy-url', 'the legacy deployment to compare with'], ['accounts', 'the accounts file']] as const) {
    if (v[flag] !== undefined && v[flag].trim() === '') return { ok: false, error: `--${flag} is empty: name ${what}` };
  }
  const baseUrl = baseUrlOf(v['base-url']);
  if (typeof baseUrl === 'object') return { ok: false, error: baseUrl.error };
  const legacyUrl = baseUrlOf(v['legacy-url']);
  if (typeof legacyUrl === 'object') return { ok: false, error: legacyUrl.error.replace('--base-url: the base URL', '--legacy-url: the legacy URL') };
  if (legacyUrl && v.generate !== undefined) return { ok: false, error: '--legacy-url compares the probes, --accounts and --har requests; it does not combine with --generate' };
  const headers = parseHeaders(v.header ?? []);
  if (typeof headers === 'string') return { ok: false, error: headers };
  const reports = reportsChosen(v.reports);
  if (typeof reports === 'string') return { ok: false, error: reports };
  // An empty path is the working directory to a resolver: the reports would land among its files.
  if (v['report-dir'] !== undefined && v['report-dir'].trim() === '') return { ok: false, error: '--report-dir is empty: name the directory the reports go to' };
  const idProblem = checkIds('only', v.only) ?? checkIds('skip', v.skip);
  if (idProblem) return { ok: false, error: idProblem };
  const shard = shardOf(v.shard);
  if (typeof shard === 'string') return { ok: false, error: shard };
  if (shard && !v.accounts) return { ok: false, error: '--shard divides the accounts of --accounts; there are none' };
  if (v.har && v['legacy-url'] === undefined && (v.accounts || v.generate !== undefined)) return { ok: false, error: '--har judges a recording and sends nothing; it does not combine with --accounts or --generate' };
  const proxy = listenOf(v.proxy);
  if (typeof proxy === 'string') return { ok: false, error: proxy };
  if (v.har && v.har.filter((f) => f === '-').length > 1) return { ok: false, error: '--har - (standard input) can be given once' };
  if (proxy && !baseUrl) return { ok: false, error: '--proxy forwards to a deployment: give its --base-url' };
  if (proxy && (v.har || v.accounts || v.generate !== undefined || shard || v['legacy-url'] !== undefined)) return { ok: false, error: '--proxy judges the traffic it forwards and sends nothing of its own; it does not combine with --har, --accounts, --generate, --shard or --legacy-url' };
  if (v.judge !== undefined && !['server', 'client', 'both'].includes(v.judge)) return { ok: false, error: `--judge must be server, client or both, not ${JSON.stringify(v.judge.slice(0, 40))}` };
  if (v['judge-priority'] !== undefined && !['idle', 'normal'].includes(v['judge-priority'])) return { ok: false, error: `--judge-priority must be idle or normal, not ${JSON.stringify(v['judge-priority'].slice(0, 40))}` };
  if (v.judge !== undefined && !v.har && !proxy) return { ok: false, error: '--judge chooses the sides of recorded (--har) or proxied (--proxy) traffic; a probe run judges the server only' };
  if (v['fail-on'] !== undefined && v['fail-on'] !== 'must' && v['fail-on'] !== 'should') return { ok: false, error: `--fail-on must be must or should, not ${JSON.stringify(v['fail-on'].slice(0, 40))}` };
  if (v.seed !== undefined && v.generate === undefined) return { ok: false, error: '--seed replays the requests of --generate N; there is no --generate' };
  let ca: Config['ca'];
  if (v.ca) {
    try {
      ca = { file: v.ca, pem: boundedBytes(v.ca, MAX_SMALL_FILE, (size) => `${v.ca} is ${size} bytes, past the ${MAX_SMALL_FILE} a certificate file may hold: not read`).toString('utf8') };
    } catch (e) {
      return { ok: false, error: `cannot read --ca ${v.ca}: ${e instanceof UnreadableFile ? e.reason : (e as NodeJS.ErrnoException).code ?? (e as Error).message}` };
    }
    if (!ca.pem.includes('-----BEGIN CERTIFICATE-----')) return { ok: false, error: `--ca ${v.ca} holds no PEM certificate` };
  }

  const namespaces = {
    request: env[NAMESPACE_ENV.request] || DEFAULT_NAMESPACES.request,
    login: env[NAMESPACE_ENV.login] || DEFAULT_NAMESPACES.login,
  };
  const requestValues: Record<string, JsonObject> = {};
  for (const op of JSON_OPERATIONS) {
    const record: JsonObject = {};
    for (const f of op.request.fields) {
      const name = envName(op.envPrefix, f);
      const text = env[name];
      if (text === undefined) { record[f.json] = exampleValue(f); continue; }
      const typed = valueFromText(f.type, text);
      if ('problem' in typed) return { ok: false, error: `${name} ${typed.problem}, not ${JSON.stringify(text)}` };
      record[f.json] = typed.value;
    }
    requestValues[op.key] = record;
  }
  return {
    ok: true,
    config: {
      ...(baseUrl ? { baseUrl } : {}),
      ...(legacyUrl ? { legacyUrl } : {}),
      reportDir: v['report-dir'] ?? 'reports',
      namespaces, values: requestValues, headers,
      timeoutMs: v.timeout ?? DEFAULT_TIMEOUT_MS,
      maxBodyBytes: (v['max-body-mib'] ?? DEFAULT_MAX_BODY_BYTES / 1024 / 1024) * 1024 * 1024,
      concurrency: v.concurrency ?? DEFAULT_CONCURRENCY,
      ...(v.jobs !== undefined ? { jobs: v.jobs } : {}),
      ...(v.rate !== undefined ? { ratePerSecond: v.rate } : {}),
      ...(v['max-requests'] !== undefined ? { maxRequests: v['max-requests'] } : {}),
      ...(ca ? { ca } : {}),
      insecure: v.insecure ?? false,
      showPersonalData: v['show-personal-data'] ?? false,
      ...(v.only ? { only: v.only } : {}),
      ...(v.skip ? { skip: v.skip } : {}),
      ...(v.accounts ? { accounts: v.accounts } : {}),
      ...(v.har ? { har: v.har } : {}),
      ...(proxy ? { proxy } : {}),
      ...(shard ? { shard } : {}),
      quiet: v.quiet ?? false,
      failOn: v['fail-on'] === 'should' ? 'should' : 'must',
      judge: (v.judge ?? 'both') as JudgedSides,
      judgePriority: v['judge-priority'] === 'normal' ? 'normal' : 'idle',
      reports,
      ...(v.generate !== undefined ? { generate: { count: v.generate, ...(v.seed !== undefined ? { seed: v.seed } : {}) } } : {}),
      given: v,
    },
  };
}

/** Stated in every report written with --show-personal-data. */
export const PERSONAL_DATA_SHOWN = 'personal data is shown in these reports (--show-personal-data): do not share them';

/** What a run of this configuration states before it starts, and in every report it writes. */
export function runWarnings(config: Config): string[] {
  return [
    ...(config.insecure ? ['TLS certificate verification was OFF for this run (--insecure)'] : []),
    ...(config.showPersonalData ? [PERSONAL_DATA_SHOWN] : []),
    ...(config.shard ? [shardWarning(config.shard.index, config.shard.count, `${commandOf('report')} --merge`)] : []),
  ];
}

/** How the run's options cover a shard: only the first sends the probes (merged, the shards are one
 *  run), and a check left without evidence in this part is the merge's to judge. */
export function shardOptions(config: Config): { probes: boolean; part?: string } {
  return config.shard ? { probes: config.shard.index === 1, part: `shard ${config.shard.index}/${config.shard.count}` } : { probes: true };
}

/** Every variable the conformance command reads from the environment (and .env). */
export const SETTINGS_ENV: readonly string[] = [
  ...envNames(CONFORMANCE_OPTIONS), NAMESPACE_ENV.request, NAMESPACE_ENV.login, ...REQUEST_VALUE_ENV,
  'HTTPS_PROXY', 'HTTP_PROXY', 'NO_PROXY', 'https_proxy', 'http_proxy', 'no_proxy',
];

/** A key spelled as a setting is, case, '_', '-' and '.' aside. */
const keyLetters = (key: string): string => key.toUpperCase().replace(/[-_.]/g, '');

/** The setting an unknown key was surely meant as: the same letters (`BASEURL`, `base_url`), one
 *  edit from a name of 6 letters or more (`BASE_UR`), or its start (`TIMEOUT` for TIMEOUT_MS).
 *  Other keys are left alone: a .env is often shared with the service's own settings. */
export function meantSetting(key: string): string | undefined {
  if (SETTINGS_ENV.includes(key)) return undefined;
  const typed = keyLetters(key);
  if (typed.length < 3) return undefined;
  return SETTINGS_ENV.find((name) => keyLetters(name) === typed)
    ?? SETTINGS_ENV.find((name) => keyLetters(name).length >= 6 && distance(typed, keyLetters(name)) <= 1)
    ?? SETTINGS_ENV.find((name) => typed.length >= 6 && keyLetters(name).startsWith(typed));
}

/** A .env file read: its values, the line each key was last set on (the one dotenv keeps), and why
 *  the run cannot go on, in one line naming the file and line: bytes that are not UTF-8 (dotenv would
 *  read U+FFFD in their place, and the run would send or compare a value nobody wrote), or a key
 *  misspelling a setting (the run would go on with its default: the embedded reference, say, for
 *  `BASEURL`, and pass). */
export interface DotenvFile { readonly values: Readonly<Record<string, string>>; readonly lineOf: ReadonlyMap<string, number>; readonly problem?: string }

/** The most a .env or --ca file may hold (1 MiB: a few hundred settings or certificates). */
export const MAX_SMALL_FILE = 1024 * 1024;

export function readDotenv(path: string): DotenvFile {
  let bytes: Buffer;
  try {
    bytes = boundedBytes(path, MAX_SMALL_FILE, (size) => `${path} is ${size} bytes, past the ${MAX_SMALL_FILE} a .env file may hold: not read`);
  } catch (e) {
    if (e instanceof UnreadableFile) return { values: {}, lineOf: new Map(), problem: e.message };
    throw e;
  }
  if (!isUtf8(bytes)) {
    const at = firstIllFormed(bytes)?.at ?? 0;
    let line = 1;
    for (let nl = bytes.indexOf(10); nl >= 0 && nl < at; nl = bytes.indexOf(10, nl + 1)) line++;
    return { values: {}, lineOf: new Map(), problem: `${path} line ${line} is not UTF-8 (byte offset ${at} of the file): its values would be read with U+FFFD in place of those bytes` };
  }
  const values = parseDotenv(bytes);
  // A key's line as dotenv's own pattern starts one (a later line setting it again wins, as in dotenv).
  const lineOf = new Map<string, number>();
  bytes.toString('utf8').split(/\r\n|\n|\r/).forEach((text, i) => {
    const key = /^\s*(?:export\s+)?([\w.-]+)(?:\s*=|:\s)/.exec(text)?.[1];
    if (key !== undefined && Object.hasOwn(values, key)) lineOf.set(key, i + 1);
  });
  for (const key of Object.keys(values)) {
    const meant = meantSetting(key);
    if (meant) return { values, lineOf, problem: `${path} line ${lineOf.get(key) ?? '?'}: ${JSON.stringify(key)} is not a setting the harness reads; did you mean ${meant}? (misspelt, it would be left unread and the run would go on with the default)` };
  }
  return { values, lineOf };
}

/** Where a problem's setting came from, when not from a flag given: " (set by SHARD in .env line 3)",
 *  " (set by SHARD in the environment)"; '' for a flag given, or a problem naming no setting. `fromDotenv`:
 *  the keys .env supplied (the environment did not set them), with their lines. */
export function settingSource(problem: string, argv: readonly string[], env: Env, fromDotenv: ReadonlyMap<string, number | undefined>): string {
  const where = (name: string) => (!fromDotenv.has(name) ? 'the environment' : fromDotenv.get(name) === undefined ? '.env' : `.env line ${fromDotenv.get(name)}`);
  const flag = /^--([a-z-]+)/.exec(problem)?.[1];
  if (flag !== undefined) {
    const spec = (CONFORMANCE_OPTIONS as OptionTable)[flag];
    const given = argv.some((a) => a === `--${flag}` || a.startsWith(`--${flag}=`) || (spec?.short !== undefined && a.startsWith(`-${spec.short}`)));
    return !given && spec?.env && env[spec.env] !== undefined && env[spec.env] !== '' ? ` (set by ${spec.env} in ${where(spec.env)})` : '';
  }
  const name = /^([A-Z][A-Z0-9_]+) /.exec(problem)?.[1];
  // A problem naming the variable says where it was set only when that was .env.
  return name !== undefined && fromDotenv.has(name) ? ` (set in ${where(name)})` : '';
}
