// A HAR entry whose request carried a body (its Content-Length says so) but holds no postData: the
// request was judged and replayed as one sent without a body. Its curl sent the Content-Length and
// no body, so the target waited for it and the replay ended as "no answer"; and a SOAP request was
// failed for an envelope it may well have sent. Now its body is "not recorded": the checks that read
// it skip, saying so, and replay.sh lists it as not replayed, saying why.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { SOAP_REQUEST_MEDIA_TYPE } from '../lib/contract/operations.js';
import { FAULTS } from '../lib/reference/variants.js';
import { runCli } from './helpers/cli.js';
import { useReference } from './helpers/reference.js';

const sh = (script: string) => new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
  // A short --max-time: a curl waiting for the body would end as "no answer" soon.
  execFile('sh', [script], { env: { PATH: process.env.PATH ?? '', REPLAY_MAX_TIME: '5' }, timeout: 60_000 }, (e, stdout, stderr) =>
    resolve({ code: e ? (typeof e.code === 'number' ? e.code : -1) : 0, stdout, stderr }));
});

const ref = useReference({ variants: FAULTS.filter((f) => f.name === 'callback-renamed') });

/** An entry of a POST whose request headers say `length` bytes were sent, and no postData. */
async function entry(path: string, headers: Record<string, string>, body: string) {
  const got = await fetch(`${ref.url}${path}`, { method: 'POST', headers, body });
  const text = await got.text();
  const pairs = (h: Iterable<[string, string]>) => [...h].map(([name, value]) => ({ name, value }));
  return {
    startedDateTime: new Date().toISOString(), time: 1,
    request: { method: 'POST', url: `${ref.url}${path}`, httpVersion: 'HTTP/1.1', headers: pairs(Object.entries({ ...headers, 'content-length': String(Buffer.byteLength(body)) })), queryString: [], cookies: [], headersSize: -1, bodySize: Buffer.byteLength(body) },
    response: { status: got.status, statusText: '', httpVersion: 'HTTP/1.1', headers: pairs(got.headers.entries()), cookies: [], content: { size: text.length, mimeType: got.headers.get('content-type') ?? '', text }, redirectURL: '', headersSize: -1, bodySize: -1 },
    cache: {}, timings: { send: 0, wait: 1, receive: 0 },
  };
}

it('a request body the HAR did not record is neither judged as absent nor replayed without it: its checks skip and replay.sh says why', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'har-body-not-recorded-'));
  const envelope = '<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><ImpersonateLogoutRequest xmlns="http://schemas.datacontract.org/2004/07/SupportState.ServiceModel.Impersonation"/></s:Body></s:Envelope>';
  const entries = [
    await entry('/supportstateuser?callback=cb', { 'content-type': 'application/json' }, '{}'),
    await entry('/soap11', { 'content-type': SOAP_REQUEST_MEDIA_TYPE, soapaction: '"ImpersonateLogoutRequest"' }, envelope),
  ];
  const har = join(dir, 'unrecorded.har');
  writeFileSync(har, JSON.stringify({ log: { version: '1.2', creator: { name: 'test', version: '1' }, entries } }));
  const r = await runCli(['--har', har, '--report-dir', join(dir, 'out'), '--reports', 'summary', '--quiet']);
  expect(r.code, r.stderr).toBe(1);
  const summary = JSON.parse(readFileSync(join(dir, 'out', 'summary.json'), 'utf8')) as { checks: { id: string; status: string; message: string }[] };
  // The fault's check fails on the answer; no request check fails for a body nobody saw.
  expect(summary.checks.filter((c) => c.status === 'failed').map((c) => c.id)).toEqual(['JSONP-CALLBACK']);
  for (const id of ['REQ-SOAP-ENVELOPE', 'REQ-SOAP-BODY', 'REQ-JSON-BODY']) {
    expect(summary.checks.find((c) => c.id === id)!.message, id).toMatch(/the request body was not recorded/);
  }
  const out = await sh(join(dir, 'out', 'replay.sh'));
  expect([out.code, out.stderr, out.stdout]).toEqual([0, '', 'JSONP-CALLBACK (MUST) har.1: not replayed: its request body was not recorded (its Content-Length or Transfer-Encoding says one was sent)\n']);
}, 60_000);

it('so too a chunked one (Transfer-Encoding: chunked, no postData): replay.sh says why, where its curl had sent the head alone and waited', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'har-body-not-recorded-'));
  const e = await entry('/supportstateuser?callback=cb', { 'content-type': 'application/json' }, '{}');
  const chunked = { ...e, request: { ...e.request, headers: e.request.headers.map((h) => (h.name === 'content-length' ? { name: 'Transfer-Encoding', value: 'chunked' } : h)) } };
  const har = join(dir, 'chunked.har');
  writeFileSync(har, JSON.stringify({ log: { version: '1.2', creator: { name: 'test', version: '1' }, entries: [chunked] } }));
  const r = await runCli(['--har', har, '--report-dir', join(dir, 'out'), '--reports', 'summary', '--quiet']);
  expect(r.code, r.stderr).toBe(1);
  const summary = JSON.parse(readFileSync(join(dir, 'out', 'summary.json'), 'utf8')) as { checks: { id: string; status: string; message: string }[] };
  expect(summary.checks.find((c) => c.id === 'REQ-JSON-BODY')!.message).toMatch(/the request body was not recorded/);
  const out = await sh(join(dir, 'out', 'replay.sh'));
  expect([out.code, out.stderr, out.stdout]).toEqual([0, '', 'JSONP-CALLBACK (MUST) har.1: not replayed: its request body was not recorded (its Content-Length or Transfer-Encoding says one was sent)\n']);
}, 60_000);
