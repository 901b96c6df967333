// Two exchanges of the login route for echo tests: exchange A carries a secret, exchange B's answer
// echoes it (test/fingerprint-base64.test.ts, test/fingerprint-spellings.test.ts).
import { recordedResponse, type Exchange } from '../../lib/http/exchange.js';

/** An exchange: POST of `request` (with `headers`) to the login route, answered 200 with `answer`. */
export function exchange(request: string, headers: Record<string, string>, answer: string): Exchange {
  return {
    id: 'case-1.login', title: 'login', origin: { source: 'case', vouched: true, case: 1 },
    request: { method: 'POST', url: 'http://example.test/supportstateuser', headers: { 'content-type': 'application/json', ...headers }, body: request },
    response: recordedResponse(200, { 'content-type': 'application/json' }, Buffer.from(answer)),
    startedAt: new Date(0).toISOString(), durationMs: 1,
  };
}

/** A HAR entry: POST of `request` to the login route, answered 200 with `answer`. */
export function entry(request: string, headers: Record<string, string>, answer: string) {
  const pairs = (h: Record<string, string>) => Object.entries(h).map(([name, value]) => ({ name, value }));
  return {
    startedDateTime: new Date(0).toISOString(), time: 1,
    request: { method: 'POST', url: 'http://example.test/supportstateuser', httpVersion: 'HTTP/1.1', headers: pairs({ 'content-type': 'application/json', ...headers }), queryString: [], cookies: [], headersSize: -1, bodySize: Buffer.byteLength(request), postData: { mimeType: 'application/json', text: request } },
    response: { status: 200, statusText: 'OK', httpVersion: 'HTTP/1.1', headers: pairs({ 'content-type': 'application/json' }), cookies: [], content: { size: answer.length, mimeType: 'application/json', text: answer }, redirectURL: '', headersSize: -1, bodySize: -1 },
    cache: {}, timings: { send: 0, wait: 1, receive: 0 },
  };
}
