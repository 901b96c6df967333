// A HAR's text holding a lone surrogate ("\ud800": half a surrogate pair, which no UTF-8 bytes
// encode) was made into the UTF-8 of U+FFFD: a request check then failed the client for a character
// it never sent, replay.sh and the differential sent the substituted bytes, and the answer's checks
// judged the recorder's text as the target's. Now such a body is not kept as sent: the checks that
// read it skip saying why, and nothing replays it.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { replayed } from '../lib/engine/differential.js';
import type { Exchange } from '../lib/http/exchange.js';
import { curlCommand, requestText } from '../lib/reporting/exchange-text.js';
import { Redactor } from '../lib/reporting/redact.js';
import type { Report } from '../lib/reporting/report.js';
import { replayBounds, replayScript } from '../lib/reporting/replay-script.js';
import { exchangeOfEntry } from '../lib/traffic/har.js';
import { LEAN, runCli } from './helpers/cli.js';

const URL_BASE = 'http://127.0.0.1:9';
const ENVELOPE = '<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><ImpersonateLogoutRequest xmlns="http://schemas.datacontract.org/2004/07/SupportState.ServiceModel.Impersonation"/></s:Body></s:Envelope>';
/** A JSON request whose userName holds a lone high surrogate at character 14. */
const JSON_TEXT = '{"userName":"a\ud800b","searchValues":"x"}';

const entry = (path: string, headers: Record<string, string>, request: { text?: string; params?: { name: string; value: string }[] }, response: { status: number; type: string; text: string }) => ({
  startedDateTime: '2026-11-27T09:00:00.000Z', time: 1,
  request: { method: 'POST', url: `${URL_BASE}${path}`, httpVersion: 'HTTP/1.1', headers: Object.entries(headers).map(([name, value]) => ({ name, value })), queryString: [], cookies: [], headersSize: -1, bodySize: -1, postData: { mimeType: headers['Content-Type'] ?? '', ...request } },
  response: { status: response.status, statusText: '', httpVersion: 'HTTP/1.1', headers: [{ name: 'Content-Type', value: response.type }], cookies: [], content: { size: -1, mimeType: response.type, text: response.text }, redirectURL: '', headersSize: -1, bodySize: -1 },
  cache: {}, timings: { send: 0, wait: 1, receive: 0 },
});

const sh = (script: string) => new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
  execFile('sh', [script], { env: { PATH: process.env.PATH ?? '' }, timeout: 60_000 }, (e, stdout, stderr) =>
    resolve({ code: e ? (typeof e.code === 'number' ? e.code : -1) : 0, stdout, stderr }));
});

/** A traffic run's report holding one failed check whose evidence is `ex`: what replay.sh is written from. */
function reportOf(ex: Exchange, redact: Redactor): Report {
  const curl = curlCommand(ex, redact, replayBounds({ configuration: {} }));
  return {
    mode: 'traffic', target: { baseUrl: URL_BASE, description: 'recorded' }, configuration: {},
    checks: [{ id: 'REQ-X', level: 'MUST', status: 'fail', evidence: [{ exchange: ex.id }], replay: curl }],
    exchanges: [{ id: ex.id, source: ex.origin.source, url: ex.request.url, status: 200, curl, responseSha256: '-' }],
  } as unknown as Report;
}

describe('a HAR request body holding a lone surrogate', () => {
  it('is judged by no check that reads it: each skips naming the character, and none fails the client (nor the target for an answer holding one)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'har-lone-surrogate-'));
    const har = join(dir, 'recorded.har');
    // JSON.stringify writes each lone surrogate as its escape: the file is ASCII, the text is not UTF-8's.
    writeFileSync(har, JSON.stringify({ log: { version: '1.2', creator: { name: 'test', version: '1' }, entries: [
      entry('/supportstateuser', { 'Content-Type': 'application/json' }, { text: JSON_TEXT }, { status: 200, type: 'application/json', text: '{"userName":"\udc00"}' }),
      entry('/soap11', { 'Content-Type': 'text/xml; charset=utf-8', SOAPAction: '"ImpersonateLogoutRequest"' }, { text: ENVELOPE.replace('<s:Body>', '<s:Body>\udc00') }, { status: 200, type: 'text/xml', text: '<x>\ud800</x>' }),
    ] } }));
    expect(readFileSync(har, 'utf8')).toContain('a\\ud800b');
    const r = await runCli([...LEAN, '--har', har, '--report-dir', join(dir, 'out'), '--quiet']);
    const summary = JSON.parse(readFileSync(join(dir, 'out', 'summary.json'), 'utf8')) as { checks: { id: string; status: string; message: string }[] };
    expect(summary.checks.filter((c) => c.status === 'failed').map((c) => c.id), r.stderr).toEqual([]);
    const request = summary.checks.filter((c) => /^REQ-(JSON-(BODY|TYPES|MEMBER-NAMES)|SOAP-(ENVELOPE|BODY))$/.test(c.id));
    expect(request.map((c) => [c.id, c.status])).toEqual(['REQ-JSON-BODY', 'REQ-JSON-MEMBER-NAMES', 'REQ-JSON-TYPES', 'REQ-SOAP-ENVELOPE', 'REQ-SOAP-BODY'].map((id) => [id, 'skipped']));
    expect(summary.checks.find((c) => c.id === 'REQ-JSON-BODY')!.message).toMatch(/lone surrogate at character 14, which names no bytes/);
    expect(summary.checks.find((c) => c.id === 'REQ-SOAP-ENVELOPE')!.message).toMatch(/lone surrogate at character \d+, which names no bytes/);
    for (const id of ['ROUTE-LOGIN-POST', 'ROUTE-SOAP-POST']) {
      expect(summary.checks.find((c) => c.id === id), id).toMatchObject({ status: 'skipped', message: expect.stringMatching(/^the response body recorded holds a lone surrogate at character \d+, which names no bytes/) });
    }
  }, 60_000);

  it('is neither sent by replay.sh nor by the differential, each saying why, and its request text names the character', async () => {
    const ex = exchangeOfEntry(entry('/supportstateuser', { 'Content-Type': 'application/json' }, { text: JSON_TEXT }, { status: 200, type: 'application/json', text: '{}' }), 0, 1 << 20);
    // The text is kept as recorded: what the recording says, not U+FFFD.
    expect(ex.request.body).toBe(JSON_TEXT);
    const shown = new Redactor({ showPersonalData: true, secrets: [] });
    expect(requestText(ex, shown)).toContain('(the recording holds a lone surrogate at character 14, which names no bytes: not the bytes sent)');
    const curl = curlCommand(ex, shown, replayBounds({ configuration: {} }));
    expect(curl).not.toContain('\ufffd');
    const script = join(mkdtempSync(join(tmpdir(), 'har-lone-surrogate-')), 'replay.sh');
    writeFileSync(script, replayScript(reportOf(ex, shown)));
    const out = await sh(script);
    expect([out.code, out.stderr, out.stdout]).toEqual([0, '', 'REQ-X (MUST) har.1: not replayed: its request body was recorded holding a lone surrogate, which names no bytes: what was sent is not known\n']);
    const notSent: string[] = [];
    const sent = [];
    for await (const spec of replayed((async function* () { yield ex; })(), {}, (e, why) => notSent.push(`${e.id}: ${why}`))) sent.push(spec);
    expect([sent, notSent]).toEqual([[], ['har.1: its request body was recorded holding a lone surrogate at character 14, which names no bytes: what was sent is not known']]);
  });

  it('in a form parameter is not kept as sent either, and reading it throws nothing', () => {
    const ex = exchangeOfEntry(entry('/supportstateuser', { 'Content-Type': 'application/x-www-form-urlencoded' }, { params: [{ name: 'userName', value: 'j\udc00' }] }, { status: 200, type: 'application/json', text: '{}' }), 0, 1 << 20);
    expect([ex.request.body, ex.request.loneSurrogateAt]).toEqual(['userName=j\udc00', 10]);
  });
});

describe('a HAR response body holding a lone surrogate', () => {
  it('leaves its status line and headers judged: the checks that read only those judge them, those that read the body skip saying why', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'har-lone-surrogate-'));
    const har = join(dir, 'recorded.har');
    const login = '{"userName":"a","searchValues":"x"}';
    const options = entry('/supportstateuser', {}, { text: '' }, { status: 200, type: 'text/plain', text: 'ok\ud800' });
    options.request.method = 'OPTIONS';
    writeFileSync(har, JSON.stringify({ log: { version: '1.2', creator: { name: 'test', version: '1' }, entries: [
      // Answered 200 (ROUTE-LOGIN-OPTIONS passes on it) with no Allow (OPTIONS-ALLOWS-POST fails on it).
      options,
      // A JSONP answer labelled as JSON: JSONP-MEDIA-TYPE fails on the header; the call in its body is unknown.
      entry('/supportstateuser?callback=cb', { 'Content-Type': 'application/json' }, { text: login }, { status: 200, type: 'application/json', text: 'cb({"userName":"\udc00"})' }),
      // Accept: application/xml answered as JSON: FORMAT-NEGOTIATION-OBSERVABLE fails on the header.
      entry('/supportstateuser', { 'Content-Type': 'application/json', Accept: 'application/xml' }, { text: login }, { status: 200, type: 'application/json', text: '{"userName":"\udc00"}' }),
    ] } }));
    await runCli([...LEAN, '--har', har, '--report-dir', join(dir, 'out'), '--quiet']);
    const summary = JSON.parse(readFileSync(join(dir, 'out', 'summary.json'), 'utf8')) as { checks: { id: string; status: string; message?: string }[] };
    const status = (id: string) => summary.checks.find((c) => c.id === id)?.status;
    expect(['ROUTE-LOGIN-OPTIONS', 'OPTIONS-ALLOWS-POST', 'JSONP-MEDIA-TYPE', 'FORMAT-NEGOTIATION-OBSERVABLE'].map((id) => [id, status(id)]))
      .toEqual([['ROUTE-LOGIN-OPTIONS', 'passed'], ['OPTIONS-ALLOWS-POST', 'failed'], ['JSONP-MEDIA-TYPE', 'failed'], ['FORMAT-NEGOTIATION-OBSERVABLE', 'failed']]);
    for (const id of ['JSONP-CALLBACK', 'JSON-MEMBER-NAMES']) {
      expect(summary.checks.find((c) => c.id === id), id).toMatchObject({ status: 'skipped', message: expect.stringMatching(/^the response body recorded holds a lone surrogate at character \d+, which names no bytes/) });
    }
  }, 60_000);

  it('keeps the status line and headers for the checks of the head, as an answer recorded without its text does', () => {
    const lone = exchangeOfEntry(entry('/supportstateuser', { 'Content-Type': 'application/json' }, { text: '{}' }, { status: 200, type: 'application/json', text: '{"userName":"\udc00"}' }), 0, 1 << 20);
    const untold = entry('/supportstateuser', { 'Content-Type': 'application/json' }, { text: '{}' }, { status: 404, type: 'text/plain', text: '' });
    delete (untold.response.content as { text?: string }).text;
    const textless = exchangeOfEntry(untold, 1, 1 << 20);
    expect([lone.answerHead?.status, lone.answerHead?.headers, lone.response]).toEqual([200, { 'content-type': 'application/json' }, undefined]);
    expect([textless.answerHead?.status, textless.answerHead?.headers, textless.error?.message]).toEqual([404, { 'content-type': 'text/plain' }, 'no response body recorded in the HAR']);
  });

  it('is not judged as the target\'s: the answer is not recorded as sent, and no U+FFFD stands for it', () => {
    const ex = exchangeOfEntry(entry('/supportstateuser', { 'Content-Type': 'application/json' }, { text: '{}' }, { status: 200, type: 'application/json', text: '{"userName":"\udc00"}' }), 0, 1 << 20);
    expect([ex.response, ex.error]).toEqual([undefined, { kind: 'not-recorded', message: 'the response body recorded holds a lone surrogate at character 13, which names no bytes: what was answered is not known' }]);
  });
});
