// Two exchanges of the login route for echo tests: exchange A carries a secret, exchange B's answer
// echoes it (test/fingerprint-base64.test.ts, test/fingerprint-spellings.test.ts, test/fingerprint-encodings.test.ts).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { recordedResponse, type Exchange } from '../../lib/http/exchange.js';
import { Redactor } from '../../lib/reporting/redact.js';
import { runCli } from './cli.js';
import { files, readable } from './outputs.js';

/** An exchange: POST of `request` (with `headers`) to the login route, answered 200 with `answer`. */
export function exchange(request: string, headers: Record<string, string>, answer: string): Exchange {
  return {
    id: 'case-1.login', title: 'login', origin: { source: 'case', vouched: true, case: 1 },
    request: { method: 'POST', url: 'http://example.test/supportstateuser', headers: { 'content-type': 'application/json', ...headers }, body: request },
    response: recordedResponse(200, { 'content-type': 'application/json' }, Buffer.from(answer)),
    startedAt: new Date(0).toISOString(), durationMs: 1,
  };
}

/** A redactor that learned exchange A: a login's request with `user` (personal) and `password`, sent
 *  with a bearer token. */
export function learnedA(user: string, password: string, bearer: string): Redactor {
  const r = new Redactor({ showPersonalData: false, secrets: [] });
  r.learnFingerprints(exchange(JSON.stringify({ userName: user, password }), { authorization: `Bearer ${bearer}` }, '{}'), {});
  return r;
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

/** A `--har` run of two entries: A (`users[0]`) posts `password` with a bearer token, B (`users[1]`)
 *  is answered `answer`; its exit code and every output (the console's lines and each report file) as text. */
export async function echoHarRun(prefix: string, users: readonly [string, string], password: string, bearer: string, answer: string): Promise<{ code: number | null; stderr: string; outputs: (readonly [string, string])[] }> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const entries = [
    entry(JSON.stringify({ userName: users[0], password }), { authorization: `Bearer ${bearer}` }, '{}'),
    entry(JSON.stringify({ userName: users[1] }), {}, answer),
  ];
  const har = join(dir, 'echo.har');
  writeFileSync(har, JSON.stringify({ log: { version: '1.2', creator: { name: 'test', version: '1' }, entries } }));
  const out = join(dir, 'out');
  const r = await runCli(['--har', har, '--report-dir', out, '--reports', 'summary,traceability,junit,allure']);
  return { code: r.code, stderr: r.stderr, outputs: [['console', r.stdout + r.stderr], ...files(out).map((f) => [f.slice(out.length + 1), readable(f)] as const)] };
}

/** echoHarRun with an answer for B that holds `echoed` (each alone, and all in one message) and `plain`:
 *  every spelling of `echoed` an output shows (as sent or inside a JSON string), and each of `plain`
 *  that exchanges.json does not show exactly as sent. */
export async function echoHarShown(prefix: string, password: string, bearer: string, echoed: readonly string[], plain: readonly string[]): Promise<{ code: number | null; stderr: string; shown: string[]; changed: string[] }> {
  const answer = JSON.stringify({ userName: 'carol', releaseMessage: echoed.join(' '), echoes: echoed, plain });
  const { code, stderr, outputs } = await echoHarRun(prefix, ['alice', 'carol'], password, bearer, answer);
  const spelled = echoed.flatMap((e) => [e, JSON.stringify(e).slice(1, -1)]);
  const shown = outputs.flatMap(([name, text]) => spelled.filter((e) => text.includes(e)).map((e) => `${JSON.stringify(e)} in ${name}`));
  const exchanges = outputs.find(([name]) => name === 'exchanges.json')![1];
  // The answer's text is a JSON string of exchanges.json: its own escapes escaped again.
  const changed = plain.filter((p) => !exchanges.includes(JSON.stringify(JSON.stringify(p).slice(1, -1)).slice(1, -1)));
  return { code, stderr, shown, changed };
}
