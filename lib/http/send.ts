// Sends one exchange with undici and records it. Every phase is bounded (connect, response
// headers, the whole body) and the body is capped while it streams, so a hostile or stalled
// target costs at most a known time and memory. Redirects are recorded, never followed.
import { Agent, request, type Dispatcher } from 'undici';
import type { Exchange, ExchangeSpec, TransportError } from './exchange.js';

export interface TransportOptions {
  /** Limit for each phase: connecting, waiting for headers, receiving the whole body. */
  readonly timeoutMs: number;
  /** Bodies larger than this are cut off and recorded as an error. */
  readonly maxBodyBytes: number;
  /** Connections kept open per origin. */
  readonly connections?: number;
}

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024;

export const createDispatcher = (options: TransportOptions): Dispatcher => new Agent({
  connect: { timeout: options.timeoutMs },
  headersTimeout: options.timeoutMs,
  bodyTimeout: options.timeoutMs,
  connections: options.connections ?? 16,
  keepAliveTimeout: 10_000,
});

const seconds = (ms: number) => `${+(ms / 1000).toFixed(3)} s`;
const mib = (bytes: number) => (bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`);

class BodyTooLarge extends Error {}
class BodyTooSlow extends Error {}

/** Undici and Node error codes -> one line an operator can act on. */
export function describeError(error: unknown, url: URL, options: TransportOptions): TransportError {
  if (error instanceof BodyTooLarge) return { kind: 'too-large', message: `response exceeded the ${mib(options.maxBodyBytes)} cap` };
  if (error instanceof BodyTooSlow) return { kind: 'body-timeout', message: `response body not complete within ${seconds(options.timeoutMs)}` };
  const e = error as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e.code ?? '';
  const causeCode = e.cause?.code ?? '';
  const where = `${url.hostname}:${url.port || (url.protocol === 'https:' ? 443 : 80)}`;
  if (code === 'ECONNREFUSED' || causeCode === 'ECONNREFUSED') return { kind: 'refused', message: `connection refused by ${where}` };
  if (['ENOTFOUND', 'EAI_AGAIN'].includes(code) || ['ENOTFOUND', 'EAI_AGAIN'].includes(causeCode)) {
    return { kind: 'dns', message: `host not found: ${url.hostname}` };
  }
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return { kind: 'connect-timeout', message: `no connection to ${where} within ${seconds(options.timeoutMs)}` };
  if (code === 'UND_ERR_HEADERS_TIMEOUT') return { kind: 'headers-timeout', message: `no response headers within ${seconds(options.timeoutMs)}` };
  if (code === 'UND_ERR_BODY_TIMEOUT') return { kind: 'body-timeout', message: `response body stalled for ${seconds(options.timeoutMs)}` };
  const tls = /CERT|SSL|TLS|SELF_SIGNED|ALTNAME/i;
  if (tls.test(code) || tls.test(causeCode)) {
    return { kind: 'tls', message: `TLS failure with ${where}: ${(e.cause?.message ?? e.message ?? code).split('\n')[0]}` };
  }
  if (['ECONNRESET', 'UND_ERR_SOCKET', 'EPIPE'].includes(code) || ['ECONNRESET', 'EPIPE'].includes(causeCode)) {
    return { kind: 'reset', message: `connection closed by ${where} before the response was complete` };
  }
  if (code === 'UND_ERR_ABORTED') return { kind: 'aborted', message: 'request aborted' };
  return { kind: 'other', message: `${code || 'error'}: ${(e.message ?? String(error)).split('\n')[0]}` };
}

const normaliseHeaders = (headers: Record<string, string | string[] | undefined>): Record<string, string> =>
  Object.fromEntries(Object.entries(headers).filter(([, v]) => v !== undefined).map(([k, v]) => [k.toLowerCase(), Array.isArray(v) ? v.join(', ') : v!]));

/** Reads the body within the cap and the deadline, or throws one of the two reasons. */
async function readCapped(body: Dispatcher.ResponseData['body'], options: TransportOptions): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  let late = false;
  const timer = setTimeout(() => { late = true; body.destroy(new BodyTooSlow()); }, options.timeoutMs);
  try {
    for await (const chunk of body) {
      size += (chunk as Buffer).length;
      if (size > options.maxBodyBytes) {
        body.destroy();
        throw new BodyTooLarge();
      }
      chunks.push(chunk as Buffer);
    }
  } catch (e) {
    throw late ? new BodyTooSlow() : e;
  } finally {
    clearTimeout(timer);
  }
  return Buffer.concat(chunks);
}

export async function send(spec: ExchangeSpec, baseUrl: string, dispatcher: Dispatcher, options: TransportOptions): Promise<Exchange> {
  const url = new URL(baseUrl.replace(/\/+$/, '') + spec.path);
  const started = Date.now();
  const record = { id: spec.id, title: spec.title, request: { method: spec.method, url: url.href, headers: spec.headers, ...(spec.body !== undefined ? { body: spec.body } : {}) }, startedAt: new Date(started).toISOString() };
  try {
    const res = await request(url, { method: spec.method as Dispatcher.HttpMethod, headers: spec.headers, body: spec.body, dispatcher });
    const body = await readCapped(res.body, options);
    return { ...record, response: { status: res.statusCode, headers: normaliseHeaders(res.headers), body }, durationMs: Date.now() - started };
  } catch (error) {
    return { ...record, error: describeError(error, url, options), durationMs: Date.now() - started };
  }
}
