// Configuration for a run, from flags, then the environment, then .env (dotenv), then defaults.
// Every problem is one line naming the setting; the caller exits 2 with it.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { checkById } from '../checks/catalogue.js';
import { exampleValue } from '../contract/examples.js';
import { ENUM_NAME, INT32_MAX, INT32_MIN } from '../contract/formats.js';
import { DEFAULT_NAMESPACES, type ServiceNamespaces } from '../contract/namespaces.js';
import { JSON_OPERATIONS } from '../contract/operations.js';
import type { Field } from '../contract/types.js';
import type { JsonObject, JsonValue } from '../json/node.js';
import { DEFAULT_CONCURRENCY } from '../engine/run.js';
import { DEFAULT_MAX_BODY_BYTES, DEFAULT_TIMEOUT_MS, PHASES_PER_EXCHANGE } from '../http/send.js';

export interface Config {
  /** Undefined: check the embedded reference. */
  readonly baseUrl?: string;
  readonly reportDir: string;
  readonly namespaces: ServiceNamespaces;
  /** Request record values per JSON operation key. */
  readonly values: Readonly<Record<string, JsonObject>>;
  /** User-supplied headers (their values are secrets). */
  readonly headers: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  readonly maxBodyBytes: number;
  readonly concurrency: number;
  readonly maxRequests?: number;
  readonly ratePerSecond?: number;
  /** PEM text of --ca, and where it came from. */
  readonly ca?: { readonly file: string; readonly pem: string };
  readonly insecure: boolean;
  readonly showPersonalData: boolean;
  readonly only?: readonly string[];
  readonly skip?: readonly string[];
}

export type ConfigResult = { ok: true; config: Config } | { ok: false; error: string } | { ok: 'help' };

export const USAGE = `usage: npm run conformance -- [options]

  --base-url URL        the deployment to check (env BASE_URL); none: the embedded reference
  --report-dir DIR      where reports go (env REPORT_DIR, default reports)
  --only ID,ID          run only these checks
  --skip ID,ID          do not run these checks
  --header "Name: v"    send this header with every request (repeatable; values are redacted)
  --timeout MS          limit for connecting, for response headers and for the body (default ${DEFAULT_TIMEOUT_MS});
                        an exchange, retries included, takes at most ${PHASES_PER_EXCHANGE} times this
  --max-body-mib N      cut off response bodies larger than N MiB (default ${DEFAULT_MAX_BODY_BYTES / 1024 / 1024})
  --concurrency N       exchanges in flight at once (default ${DEFAULT_CONCURRENCY})
  --rate N              at most N requests per second (production targets)
  --max-requests N      at most N requests in the run; checks on unsent exchanges are not evaluated
  --ca FILE             trust this PEM CA certificate too (private PKI)
  --insecure            do not verify TLS certificates (stated in every report)
  --show-personal-data  show personal-data fields in reports (local debugging; credentials stay hidden)
  --help                this text

environment (and .env): BASE_URL, REPORT_DIR, TIMEOUT_MS, MAX_BODY_MIB, CONCURRENCY, RATE, MAX_REQUESTS,
CA_FILE, HTTPS_PROXY / HTTP_PROXY / NO_PROXY, SERVICE_REQUEST_NAMESPACE, SERVICE_LOGIN_NAMESPACE,
and the request values: ${JSON_OPERATIONS.flatMap((op) => op.request.fields.map((f) => envName(op.envPrefix, f))).join(', ')}
exit codes: 0 every MUST check passed; 1 a MUST check failed; 2 the run could not proceed`;

/** userName -> USER_NAME, dataForMM -> DATA_FOR_MM */
export function envName(prefix: string, f: Field): string {
  return `${prefix}_${f.json.replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/([A-Z])([A-Z][a-z])/g, '$1_$2').toUpperCase()}`;
}

type Env = Readonly<Record<string, string | undefined>>;

/** A request value from text, typed as the field says. */
function typedValue(f: Field, text: string, name: string): { value: JsonValue } | { error: string } {
  const bad = (what: string) => ({ error: `${name} must be ${what}, not ${JSON.stringify(text)}` });
  switch (f.type.kind) {
    case 'integer': {
      const n = Number(text);
      return /^-?\d+$/.test(text) && n >= INT32_MIN && n <= INT32_MAX ? { value: n } : bad('a 32-bit integer');
    }
    case 'boolean':
      return text === 'true' || text === 'false' ? { value: text === 'true' } : bad('true or false');
    case 'enum':
      return ENUM_NAME.test(text) ? { value: text } : bad('an enum member name');
    default:
      return { value: text };
  }
}

const RESERVED_HEADERS = new Set(['content-type', 'content-length', 'host', 'soapaction', 'accept', 'transfer-encoding', 'connection']);

function parseHeaders(list: readonly string[]): Record<string, string> | string {
  const out: Record<string, string> = {};
  for (const h of list) {
    const m = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):\s?(.*)$/.exec(h);
    if (!m) return `--header must look like "Name: value"; got ${JSON.stringify(h.split(':')[0])}`;
    const name = m[1]!.toLowerCase();
    if (RESERVED_HEADERS.has(name)) return `--header ${m[1]} is set by the harness per request and cannot be overridden`;
    if (/[\r\n]/.test(m[2]!)) return `--header ${m[1]} has a line break in its value`;
    out[name] = m[2]!;
  }
  return out;
}

function idList(flag: string, text: string | undefined): string[] | string | undefined {
  if (text === undefined) return undefined;
  const ids = text.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = ids.filter((id) => !checkById.has(id));
  if (unknown.length) return `--${flag}: unknown check id ${unknown.join(', ')} (the ids are listed in summary.json and the README)`;
  if (!ids.length) return `--${flag} needs at least one check id`;
  return ids;
}

function positiveInt(flag: string, text: string | undefined, fallback: number, max: number): number | string {
  if (text === undefined) return fallback;
  const n = Number(text);
  return /^\d+$/.test(text) && n > 0 && n <= max ? n : `--${flag} must be an integer from 1 to ${max}, not ${JSON.stringify(text)}`;
}

function baseUrlOf(text: string | undefined): string | undefined | { error: string } {
  if (text === undefined || text === '') return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { error: `the base URL ${JSON.stringify(text)} is not a URL` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { error: `the base URL must be http or https, not ${url.protocol}` };
  if (url.username || url.password) return { error: 'the base URL carries credentials; pass them with --header "Authorization: …" so reports can redact them' };
  if (url.search || url.hash) return { error: 'the base URL must not have a query or fragment' };
  return url.href.replace(/\/+$/, '');
}

export function parseConfig(argv: readonly string[], env: Env): ConfigResult {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        'base-url': { type: 'string' }, 'report-dir': { type: 'string' },
        only: { type: 'string' }, skip: { type: 'string' },
        header: { type: 'string', multiple: true }, timeout: { type: 'string' },
        'max-body-mib': { type: 'string' }, concurrency: { type: 'string' }, rate: { type: 'string' },
        'max-requests': { type: 'string' }, ca: { type: 'string' },
        insecure: { type: 'boolean' }, 'show-personal-data': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true, allowPositionals: false,
    }));
  } catch (e) {
    return { ok: false, error: (e as Error).message.split('\n')[0] ?? 'bad arguments' };
  }
  if (values.help) return { ok: 'help' };

  const baseUrl = baseUrlOf(values['base-url'] ?? env.BASE_URL);
  if (typeof baseUrl === 'object') return { ok: false, error: baseUrl.error };
  const headers = parseHeaders(values.header ?? []);
  if (typeof headers === 'string') return { ok: false, error: headers };
  const timeoutMs = positiveInt('timeout', values.timeout ?? env.TIMEOUT_MS, DEFAULT_TIMEOUT_MS, 600_000);
  if (typeof timeoutMs === 'string') return { ok: false, error: timeoutMs };
  const maxBodyMib = positiveInt('max-body-mib', values['max-body-mib'] ?? env.MAX_BODY_MIB, DEFAULT_MAX_BODY_BYTES / 1024 / 1024, 1024);
  const concurrency = positiveInt('concurrency', values.concurrency ?? env.CONCURRENCY, DEFAULT_CONCURRENCY, 256);
  const rate = positiveInt('rate', values.rate ?? env.RATE, Infinity, 10_000);
  const maxRequests = positiveInt('max-requests', values['max-requests'] ?? env.MAX_REQUESTS, Infinity, 1_000_000);
  for (const n of [maxBodyMib, concurrency, rate, maxRequests]) if (typeof n === 'string') return { ok: false, error: n };
  const caFile = values.ca ?? env.CA_FILE;
  let ca: Config['ca'];
  if (caFile) {
    try {
      ca = { file: caFile, pem: readFileSync(caFile, 'utf8') };
    } catch (e) {
      return { ok: false, error: `cannot read --ca ${caFile}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` };
    }
    if (!ca.pem.includes('-----BEGIN CERTIFICATE-----')) return { ok: false, error: `--ca ${caFile} holds no PEM certificate` };
  }
  const only = idList('only', values.only);
  const skip = idList('skip', values.skip);
  for (const l of [only, skip]) if (typeof l === 'string') return { ok: false, error: l };

  const namespaces = {
    request: env.SERVICE_REQUEST_NAMESPACE || DEFAULT_NAMESPACES.request,
    login: env.SERVICE_LOGIN_NAMESPACE || DEFAULT_NAMESPACES.login,
  };
  const requestValues: Record<string, JsonObject> = {};
  for (const op of JSON_OPERATIONS) {
    const record: JsonObject = {};
    for (const f of op.request.fields) {
      const name = envName(op.envPrefix, f);
      const text = env[name];
      const v = text === undefined ? { value: exampleValue(f) } : typedValue(f, text, name);
      if ('error' in v) return { ok: false, error: v.error };
      record[f.json] = v.value;
    }
    requestValues[op.key] = record;
  }
  return {
    ok: true,
    config: {
      ...(baseUrl ? { baseUrl } : {}),
      reportDir: values['report-dir'] || env.REPORT_DIR || 'reports', // empty means unset, as for BASE_URL
      namespaces, values: requestValues, headers, timeoutMs,
      maxBodyBytes: (maxBodyMib as number) * 1024 * 1024,
      concurrency: concurrency as number,
      ...(Number.isFinite(rate) ? { ratePerSecond: rate as number } : {}),
      ...(Number.isFinite(maxRequests) ? { maxRequests: maxRequests as number } : {}),
      ...(ca ? { ca } : {}),
      insecure: values.insecure ?? false,
      showPersonalData: values['show-personal-data'] ?? false,
      ...(only ? { only: only as string[] } : {}),
      ...(skip ? { skip: skip as string[] } : {}),
    },
  };
}
