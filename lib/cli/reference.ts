// `npm run reference -- [options]`: serves the reference until interrupted; with --judge-clients it also
// judges every request a client sends (judging-reference.ts) and exits with the clients' verdict.
// Options are declared once (the table below). Bad arguments: one line on stderr, exit 2.
import { createPrivateKey } from 'node:crypto';
import { accessSync, constants, readFileSync } from 'node:fs';
import { createSecureContext } from 'node:tls';
import { makeDirectory } from './make-directory.js';
import { resolve } from 'node:path';
import { commandOf, parseOptions, shownOptions, usageOf, type OptionTable } from '../options.js';
import { DEFAULT_NAMESPACES } from '../contract/namespaces.js';
import { startReference, type ReferenceOptions } from '../reference/server.js';
import { finish, stoppedAtOnce, type ReportName } from './write-reports.js';
import { CONFORMANCE_OPTIONS, reportsChosen } from './config.js';
import { REPORT_ROUTE, startJudgingReference } from './judging-reference.js';
import { stopOnSignals } from './stopping.js';
import { listenProblem } from './listen-problem.js';
import { findVariants, FAULTS, STYLES } from '../reference/variants.js';
import { RANDOM_TOKENS, VALUE_FAULTS } from '../reference/value-faults.js';
import { errorLine } from './error-line.js';

export const REFERENCE_OPTIONS = {
  port: { kind: 'integer', arg: 'N', min: 0, max: 65535, defaultText: '8080; 0 picks a free one', help: 'port to listen on' },
  host: { kind: 'string', arg: 'HOST', defaultText: '127.0.0.1', help: 'interface to bind' },
  latency: { kind: 'integer', arg: 'MS', min: 0, max: 600_000, help: 'delay every response by MS milliseconds' },
  fault: { kind: 'repeatable', arg: 'NAME', help: 'break one rule of the interface; --list shows the names' },
  'fault-rate': { kind: 'string', arg: 'R', defaultText: '1', help: 'the fraction of accounts the faults hit (0 to 1), deterministic per account' },
  'value-fault': { kind: 'repeatable', arg: 'NAME', help: 'change one value, conformant in type (for differential runs); --list shows the names' },
  'random-tokens': { kind: 'boolean', help: 'answer with fresh random credential values every time (volatile tokens)' },
  style: { kind: 'repeatable', arg: 'NAME', help: 'write responses in a legitimate alternative style' },
  'sample-only': { kind: 'boolean', help: 'answer every account with the sample records (no population)' },
  list: { kind: 'boolean', help: 'list faults and styles, one line each' },
  'tls-cert': { kind: 'string', arg: 'FILE', help: 'serve HTTPS with this PEM certificate (chain) …' },
  'tls-key': { kind: 'string', arg: 'FILE', help: '… and this PEM private key' },
  'judge-clients': { kind: 'boolean', help: `judge every request a client sends (the Requests checks): a line per finding, reports at GET ${REPORT_ROUTE} and on stop` },
  'report-dir': { kind: 'string', arg: 'DIR', defaultText: 'reports', help: 'with --judge-clients: where the reports go' },
  // The run's own option (one parser, reportsChosen): a judging reference writes its reports on
  // every GET of the report route, where the presentation is most of a write's cost.
  reports: { ...CONFORMANCE_OPTIONS.reports, env: undefined, help: `with --judge-clients: ${CONFORMANCE_OPTIONS.reports.help}` },
  help: { kind: 'boolean', short: 'h', help: 'this text' },
} as const satisfies OptionTable;

const usage = () => `usage: ${commandOf('reference')} [options]
${usageOf(REFERENCE_OPTIONS)}
environment: SERVICE_REQUEST_NAMESPACE, SERVICE_LOGIN_NAMESPACE override the SOAP namespaces`;

function fail(message: string, withUsage = true): never {
  errorLine(`reference: ${message}`);
  if (withUsage) process.stderr.write(`${usage().split('\n')[0]}\n`);
  process.exit(2);
}

/** OpenSSL's words for why a PEM text is unusable ("bad base64 decode"), never its text (a key is secret). */
const pemReason = (e: unknown): string => (e as Error).message.split('\n')[0]!.split('::').pop()!;

/** Why --tls-cert and --tls-key cannot serve HTTPS, naming the file at fault, checked before the
 *  server is made (whose own error names neither); undefined when they can. */
function tlsProblem(cert: { file: string; pem: string }, key: { file: string; pem: string }): string | undefined {
  try { createSecureContext({ cert: cert.pem }); } catch (e) { return `--tls-cert ${cert.file} holds no PEM certificate that can be read (${pemReason(e)})`; }
  try { createPrivateKey(key.pem); } catch (e) { return `--tls-key ${key.file} holds no PEM private key that can be read (${pemReason(e)})`; }
  try { createSecureContext({ cert: cert.pem, key: key.pem }); } catch (e) { return `--tls-key ${key.file} is not the private key of the certificate in --tls-cert ${cert.file} (${pemReason(e)})`; }
  return undefined;
}

async function main(): Promise<void> {
  const parsed = parseOptions(REFERENCE_OPTIONS, process.argv.slice(2), {});
  if (!parsed.ok) fail(parsed.error);
  const v = parsed.values;
  if (v.help) { process.stdout.write(`${usage()}\n`); return; }
  if (v.list) {
    for (const [kind, list] of [['fault', FAULTS], ['value-fault', VALUE_FAULTS], ['style', STYLES]] as const) {
      for (const x of list) process.stdout.write(`${kind} ${x.name.padEnd(34)} ${x.description}\n`);
    }
    return;
  }
  const faults = findVariants(FAULTS, v.fault ?? []);
  const styles = findVariants(STYLES, v.style ?? []);
  const valueFaults = findVariants(VALUE_FAULTS, v['value-fault'] ?? []);
  for (const r of [faults, styles, valueFaults]) if (!r.ok) fail(r.error);
  const rate = v['fault-rate'] === undefined ? 1 : Number(v['fault-rate']);
  if (!/^(0|1|0?\.\d+|1\.0*)$/.test(v['fault-rate'] ?? '1') || !(rate >= 0 && rate <= 1)) fail(`--fault-rate must be a number from 0 to 1, not ${JSON.stringify(v['fault-rate'])}`);
  if (!v['tls-cert'] !== !v['tls-key']) fail('--tls-cert and --tls-key go together');
  const read = (flag: string, file: string) => {
    try {
      return readFileSync(file, 'utf8');
    } catch (e) {
      return fail(`cannot read --${flag} ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
  };
  const tls = v['tls-cert'] && v['tls-key'] ? { cert: read('tls-cert', v['tls-cert']), key: read('tls-key', v['tls-key']) } : undefined;
  const unusable = tls && tlsProblem({ file: v['tls-cert']!, pem: tls.cert }, { file: v['tls-key']!, pem: tls.key });
  if (unusable) fail(unusable, false);
  const options: ReferenceOptions = {
    ...(tls ? { tls } : {}),
    port: v.port ?? 8080,
    host: v.host ?? '127.0.0.1',
    latencyMs: v.latency ?? 0,
    faultRate: rate,
    ...(v['sample-only'] ? { sampleOnly: true } : {}),
    namespaces: {
      request: process.env.SERVICE_REQUEST_NAMESPACE || DEFAULT_NAMESPACES.request,
      login: process.env.SERVICE_LOGIN_NAMESPACE || DEFAULT_NAMESPACES.login,
    },
    variants: [...(styles.ok ? styles.variants : []), ...(v['random-tokens'] ? [RANDOM_TOKENS] : []), ...(faults.ok ? faults.variants : []), ...(valueFaults.ok ? valueFaults.variants : [])],
  };
  const applied = [...(v.style ?? []).map((s) => `style ${s}`), ...(v['random-tokens'] ? ['random tokens'] : []),
    ...[...(v.fault ?? []), ...(v['value-fault'] ?? [])].map((f) => `fault ${f}${rate < 1 ? ` on ${rate * 100}% of accounts` : ''}`)];
  for (const flag of ['report-dir', 'reports'] as const) if (v[flag] !== undefined && !v['judge-clients']) fail(`--${flag} goes with --judge-clients`);
  const reports = reportsChosen(v.reports);
  if (typeof reports === 'string') fail(reports);
  if (v['judge-clients']) return judgeClients(options, resolve(v['report-dir'] ?? 'reports'), reports, applied, shownOptions(REFERENCE_OPTIONS, v));
  const reference = await startReference(options).catch((e: NodeJS.ErrnoException) => fail(listenProblem(e, options.host ?? '127.0.0.1', options.port ?? 0), false));
  // A connection closed with no whole request is no exchange, and this mode writes no report: the
  // stop says how many, as the judging reference's reports and the proxy's do.
  stopOnSignals({
    name: 'reference', doing: 'closing connections…',
    finish: () => reference.close().then(() => {
      const note = reference.connectionsNote();
      if (note) errorLine(`reference: ${note}`);
      return 0;
    }),
  });
  process.stdout.write(`reference listening on ${reference.url}${applied.length ? ` (${applied.join(', ')})` : ''}\n`);
}

/** --judge-clients: serve and judge until stopped, then write the reports and exit with the clients'
 *  verdict (0 conformant, 1 a MUST request check failed, 2 no request of the interface came). */
async function judgeClients(options: ReferenceOptions, reportDir: string, reports: ReadonlySet<ReportName>, applied: readonly string[], given: Readonly<Record<string, unknown>>): Promise<void> {
  // The report directory is proved writable before the first client is served.
  try {
    makeDirectory(reportDir);
    accessSync(reportDir, constants.W_OK);
  } catch (e) {
    fail(`cannot use the report directory ${reportDir}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const judging = await startJudgingReference({ ...options, reportDir, reports, given }).catch((e: NodeJS.ErrnoException) => fail(listenProblem(e, options.host ?? '127.0.0.1', options.port ?? 0), false));
  stopOnSignals({ name: 'reference', atOnce: stoppedAtOnce(reportDir, 'reference'), finish: () => judging.stop().then((written) => finish(written, 'reference')) });
  const what = [...applied, `judging client requests; reports in ${reportDir}, now at GET ${judging.url}${REPORT_ROUTE}`];
  process.stdout.write(`reference listening on ${judging.url} (${what.join(', ')})\n`);
}

void main();
