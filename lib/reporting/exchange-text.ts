// An exchange as an auditor reads it: request line, headers and body, then the answer, all
// redacted; and as a curl command that replays it.
import type { Exchange } from '../http/exchange.js';
import { MAX_SHOWN_TEXT, type Redactor } from './redact.js';

/** Attachments stay readable: longer bodies are cut at MAX_SHOWN_TEXT, saying so. */
function bodyText(bytes: Buffer): string {
  if (bytes.length === 0) return '';
  const text = new TextDecoder('utf-8').decode(bytes.subarray(0, MAX_SHOWN_TEXT));
  if (text.includes('\u0000')) return `(${bytes.length} bytes of binary data)`;
  return bytes.length > MAX_SHOWN_TEXT ? `${text}\n… (${bytes.length - MAX_SHOWN_TEXT} more bytes not shown)` : text;
}

const headerLines = (headers: Readonly<Record<string, string>>, redact: Redactor) =>
  Object.entries(headers).map(([k, v]) => `${k}: ${redact.header(k, v)}`);

export function requestText(ex: Exchange, redact: Redactor): string {
  const r = ex.request;
  return [`${r.method} ${redact.text(r.url)}`, ...headerLines(r.headers, redact), '', r.body === undefined ? '' : redact.text(r.body)].join('\n');
}

export function responseText(ex: Exchange, redact: Redactor): string {
  if (!ex.response) return `(no response: ${ex.error?.message ?? 'unknown'})`;
  const r = ex.response;
  return [`HTTP ${r.status}`, ...headerLines(r.headers, redact), '', redact.text(bodyText(r.body))].join('\n');
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** A curl command that sends the same request (secret values replaced by markers to fill in). */
export function curlCommand(ex: Exchange, redact: Redactor): string {
  const r = ex.request;
  const parts = ['curl', '-sS', '-i', '-X', r.method];
  for (const [k, v] of Object.entries(r.headers)) parts.push('-H', shellQuote(`${k}: ${redact.header(k, v)}`));
  if (r.body !== undefined) parts.push('--data-binary', shellQuote(redact.text(r.body)));
  parts.push(shellQuote(redact.text(r.url)));
  return parts.join(' ');
}
