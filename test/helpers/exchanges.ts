// Hand-built exchanges for check tests: a conforming set made from the golden recordings in
// fixtures/golden/, and one-line ways to break one of them.
import { readFileSync } from 'node:fs';
import { CheckContext } from '../../lib/checks/context.js';
import { DEFAULT_NAMESPACES } from '../../lib/contract/namespaces.js';
import { JSON_OPERATIONS, login } from '../../lib/contract/operations.js';
import { CALLBACK_NAME, X } from '../../lib/engine/exchanges.js';
import type { Exchange, RecordedResponse } from '../../lib/http/exchange.js';

function golden(name: string): { type: string; body: string } {
  const text = readFileSync(new URL(`../../fixtures/golden/${name}`, import.meta.url), 'utf8');
  const [head, ...rest] = text.split('\n\n');
  return { type: head!.replace('Content-Type: ', ''), body: rest.join('\n\n') };
}

const answer = (status: number, type: string | undefined, body: string, headers: Record<string, string> = {}): RecordedResponse =>
  ({ status, headers: { ...(type ? { 'content-type': type } : {}), ...headers }, body: Buffer.from(body, 'utf8') });

const exchange = (id: string, response: RecordedResponse): Exchange => ({
  id, title: id, request: { method: 'POST', url: `http://target.test/${id}`, headers: {} }, response, startedAt: '2026-01-01T00:00:00.000Z', durationMs: 1,
});

/** Every exchange the catalogue reads, as a conforming target answers them. */
export function goodExchanges(): Map<string, Exchange> {
  const out = new Map<string, Exchange>();
  const put = (id: string, r: RecordedResponse) => out.set(id, exchange(id, r));
  const soap = golden('logout.soap.xml');
  for (const op of JSON_OPERATIONS) {
    const json = golden(`${op.key}.json`);
    const jsonp = golden(`${op.key}.jsonp`);
    for (const id of [X.post(op), X.reply(op), X.jsonExtension(op), X.formatJson(op)]) put(id, answer(200, json.type, json.body));
    put(X.callback(op), answer(200, jsonp.type, `${CALLBACK_NAME}(${json.body})`));
    put(X.unsafeCallback(op), answer(200, jsonp.type, `alert_document.domain___(${json.body})`));
    put(X.options(op), answer(200, undefined, '', { 'access-control-allow-methods': 'GET, POST, OPTIONS' }));
  }
  put(X.acceptXml(login), answer(200, 'application/xml', golden('login.xml').body));
  put(X.soapExtension(login), answer(200, soap.type, soap.body));
  put(X.soap, answer(200, soap.type, soap.body));
  put(X.soapFormatQuery, answer(200, soap.type, soap.body));
  return out;
}

export interface Change {
  status?: number;
  headers?: Record<string, string | undefined>;
  /** New body text, or an edit of the old one (which must change it). */
  body?: string | ((old: string) => string);
  /** Replace the response with a transport failure. */
  error?: string;
}

/** A copy of `exchanges` with one exchange changed. */
export function changed(exchanges: Map<string, Exchange>, id: string, change: Change): Map<string, Exchange> {
  const out = new Map(exchanges);
  const ex = out.get(id);
  if (!ex?.response) throw new Error(`no exchange ${id}`);
  if (change.error) {
    const { response: _r, ...rest } = ex;
    out.set(id, { ...rest, error: { kind: 'reset', message: change.error } });
    return out;
  }
  const old = ex.response.body.toString('utf8');
  const body = typeof change.body === 'function' ? change.body(old) : change.body ?? old;
  if (typeof change.body === 'function' && body === old) throw new Error(`edit of ${id} changed nothing`);
  const headers = Object.fromEntries(Object.entries({ ...ex.response.headers, ...change.headers }).filter(([, v]) => v !== undefined)) as Record<string, string>;
  out.set(id, { ...ex, response: { status: change.status ?? ex.response.status, headers, body: Buffer.from(body, 'utf8') } });
  return out;
}

export const contextOf = (exchanges: Map<string, Exchange>) =>
  new CheckContext(exchanges, { namespaces: DEFAULT_NAMESPACES });
