// Test helpers: a reference per suite, and one-line request builders for it.
import { afterAll, beforeAll } from 'vitest';
import { DEFAULT_NAMESPACES, SOAP11_ENVELOPE } from '../../lib/contract/namespaces.js';
import { startReference, type ReferenceOptions, type RunningReference } from '../../lib/reference/server.js';

/** Starts a reference before the suite's tests and closes it after; read `.url` inside tests. */
export function useReference(options: ReferenceOptions = {}): { readonly url: string } {
  let running: RunningReference | undefined;
  beforeAll(async () => { running = await startReference(options); });
  afterAll(async () => { await running?.close(); });
  return { get url() { if (!running) throw new Error('reference not started'); return running.url; } };
}

export const SOAP_REQUEST = `<s:Envelope xmlns:s="${SOAP11_ENVELOPE}"><s:Body><ImpersonateLogoutRequest xmlns="${DEFAULT_NAMESPACES.request}"/></s:Body></s:Envelope>`;

export interface Got { status: number; type: string | null; headers: Headers; body: string }

export async function call(url: string, init: RequestInit & { json?: unknown } = {}): Promise<Got> {
  const { json, ...rest } = init;
  const res = await fetch(url, {
    method: 'POST',
    ...rest,
    ...(json !== undefined ? { body: JSON.stringify(json), headers: { 'content-type': 'application/json', ...(rest.headers as Record<string, string>) } } : {}),
  });
  return { status: res.status, type: res.headers.get('content-type'), headers: res.headers, body: await res.text() };
}

export const postSoap = (url: string, body = SOAP_REQUEST, headers: Record<string, string> = {}) =>
  call(url, { body, headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: 'ImpersonateLogoutRequest', ...headers } });
