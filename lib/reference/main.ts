// `npm run reference -- [--port N] [--host H] [--latency MS] [--fault NAME]… [--style NAME]…`
// Serves the reference until interrupted. Bad arguments: one line on stderr, exit 2.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { DEFAULT_NAMESPACES } from '../contract/namespaces.js';
import { startReference } from './server.js';
import { findVariants, FAULTS, STYLES } from './variants.js';

const USAGE = `usage: npm run reference -- [--port N] [--host HOST] [--latency MS] [--fault NAME]... [--style NAME]...
  --port N         port to listen on (default 8080; 0 picks a free one)
  --host HOST      interface to bind (default 127.0.0.1)
  --latency MS     delay every response by MS milliseconds
  --fault NAME     break one rule of the interface (repeatable); --list shows the names
  --style NAME     write responses in a legitimate alternative style (repeatable)
  --list           list faults and styles, one line each
  --tls-cert FILE  serve HTTPS with this PEM certificate (chain) ...
  --tls-key FILE   ... and this PEM private key
environment: SERVICE_REQUEST_NAMESPACE, SERVICE_LOGIN_NAMESPACE override the SOAP namespaces`;

function fail(message: string): never {
  process.stderr.write(`reference: ${message}\n${USAGE.split('\n')[0]}\n`);
  process.exit(2);
}

function integer(name: string, value: string | undefined, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > max) fail(`--${name} must be an integer from 0 to ${max}, not ${JSON.stringify(value)}`);
  return n;
}

async function main(): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({
      options: {
        port: { type: 'string' }, host: { type: 'string' }, latency: { type: 'string' },
        fault: { type: 'string', multiple: true }, style: { type: 'string', multiple: true },
        list: { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
        'tls-cert': { type: 'string' }, 'tls-key': { type: 'string' },
      },
      strict: true, allowPositionals: false,
    });
  } catch (e) {
    fail((e as Error).message.split('\n')[0] ?? 'bad arguments');
  }
  const v = parsed.values;
  if (v.help) { process.stdout.write(`${USAGE}\n`); return; }
  if (v.list) {
    for (const [kind, list] of [['fault', FAULTS], ['style', STYLES]] as const) {
      for (const x of list) process.stdout.write(`${kind} ${x.name.padEnd(34)} ${x.description}\n`);
    }
    return;
  }
  const faults = findVariants(FAULTS, v.fault ?? []);
  const styles = findVariants(STYLES, v.style ?? []);
  for (const r of [faults, styles]) if (!r.ok) fail(r.error);
  if (!v['tls-cert'] !== !v['tls-key']) fail('--tls-cert and --tls-key go together');
  const read = (flag: string, file: string) => {
    try {
      return readFileSync(file, 'utf8');
    } catch (e) {
      return fail(`cannot read --${flag} ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
  };
  const tls = v['tls-cert'] && v['tls-key'] ? { cert: read('tls-cert', v['tls-cert']), key: read('tls-key', v['tls-key']) } : undefined;
  const reference = await startReference({
    ...(tls ? { tls } : {}),
    port: integer('port', v.port, 8080, 65535),
    host: v.host ?? '127.0.0.1',
    latencyMs: integer('latency', v.latency, 0, 600_000),
    namespaces: {
      request: process.env.SERVICE_REQUEST_NAMESPACE || DEFAULT_NAMESPACES.request,
      login: process.env.SERVICE_LOGIN_NAMESPACE || DEFAULT_NAMESPACES.login,
    },
    variants: [...(styles.ok ? styles.variants : []), ...(faults.ok ? faults.variants : [])],
  }).catch((e: NodeJS.ErrnoException) => fail(`cannot listen: ${e.code ?? e.message}`));
  const applied = [...(v.style ?? []).map((s) => `style ${s}`), ...(v.fault ?? []).map((f) => `fault ${f}`)];
  process.stdout.write(`reference listening on ${reference.url}${applied.length ? ` (${applied.join(', ')})` : ''}\n`);
  const stop = () => { void reference.close().then(() => process.exit(0)); };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

void main();
