// A second HAR writer nobody here wrote and that has nothing to do with Chromium: Polly.JS, whose
// node-http adapter records what a Node client sends and its fs persister writes a HAR 1.2 file.
// The harness judges that file as it judges Chromium's: conformant for the reference, the fault's
// check failing for a faulty one.
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import http from 'node:http';
import { gzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import NodeHttpAdapter from '@pollyjs/adapter-node-http';
import { Polly } from '@pollyjs/core';
import FSPersister from '@pollyjs/persister-fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReference, type RunningReference } from '../lib/reference/server.js';
import { FAULTS, STYLES } from '../lib/reference/variants.js';
import { exchangeOfEntry } from '../lib/traffic/har.js';
import { LEAN, runCli } from './helpers/cli.js';
import { SOAP_REQUEST } from './helpers/reference.js';

// Their typings declare the modules, not the classes, as the default export; at run time the default is the class.
type Registrable = Parameters<typeof Polly.register>[0];
Polly.register(NodeHttpAdapter as unknown as Registrable);
Polly.register(FSPersister as unknown as Registrable);

/** One request through node:http's module object (what Polly's adapter patches; a named import of
 *  node:http would not see the patch). */
function send(base: string, path: string, headers: Record<string, string>, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}${path}`, { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const JSON_TYPE = { 'content-type': 'application/json' };

/** What a Node client sends, recorded by Polly into a HAR; the path of that file. */
async function recordWithPolly(ref: RunningReference, name: string, more: Record<string, string> = {}): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'polly-'));
  const polly = new Polly(name, { adapters: ['node-http'], persister: 'fs', persisterOptions: { fs: { recordingsDir: dir } }, mode: 'record', logLevel: 'silent' });
  const json = { ...JSON_TYPE, ...more };
  try {
    expect(await send(ref.url, '/supportstateuser', json, '{"userName":"jdoe.support"}')).toBe(200);
    expect(await send(ref.url, '/json/reply/SupportStateUserLoginRequest?callback=cb', json, '{}')).toBe(200);
    expect(await send(ref.url, '/user/confirmemail', json, '{"recoveryToken":"r","ownerId":7}')).toBe(200);
    expect(await send(ref.url, '/soap11', { 'content-type': 'text/xml; charset=utf-8', soapaction: 'ImpersonateLogoutRequest', ...more }, SOAP_REQUEST)).toBe(200);
  } finally {
    await polly.stop(); // writes the recording
  }
  const find = (d: string): string[] => readdirSync(d).flatMap((f) => (statSync(join(d, f)).isDirectory() ? find(join(d, f)) : f.endsWith('.har') ? [join(d, f)] : []));
  const [har] = find(dir);
  expect(har, 'Polly wrote a HAR').toBeTruthy();
  return har!;
}

describe('--har on a recording Polly.JS wrote', () => {
  let plain: RunningReference;
  let broken: RunningReference;
  let gzip: RunningReference;
  let notGzip: RunningReference;
  beforeAll(async () => {
    [plain, broken, gzip, notGzip] = await Promise.all([startReference(), startReference({ variants: FAULTS.filter((f) => f.name === 'callback-renamed') }),
      startReference({ variants: STYLES.filter((s) => s.name === 'gzip') }), startReference({ variants: FAULTS.filter((f) => f.name === 'gzip-header-plain-body') })]);
  });
  afterAll(async () => { await Promise.all([plain.close(), broken.close(), gzip.close(), notGzip.close()]); });

  it('of the reference: conformant, every recorded exchange judged', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'polly-run-'));
    const r = await runCli([...LEAN, '--har', await recordWithPolly(plain, 'plain'), '--report-dir', dir, '--quiet']);
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toMatch(/judged 4 recorded exchanges/);
    expect(r.stdout).toMatch(/Verdict: CONFORMANT/);
  });

  it('of the reference in its gzip style asked for gzip (each answer kept coded, as a JSON array of its chunks in base64): conformant, every exchange judged on its decoded body', async () => {
    const har = await recordWithPolly(gzip, 'gzip', { 'accept-encoding': 'gzip' });
    const entries = (JSON.parse(readFileSync(har, 'utf8')) as { log: { entries: { response: { content: { text: string; encoding?: string } } }[] } }).log.entries;
    expect(entries.map((e) => [e.response.content.encoding, e.response.content.text.startsWith('[')])).toEqual(entries.map(() => ['base64', true]));
    const dir = mkdtempSync(join(tmpdir(), 'polly-run-'));
    const r = await runCli([...LEAN, '--har', har, '--report-dir', dir, '--quiet']);
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toMatch(/judged 4 recorded exchanges/);
    expect(r.stdout).toMatch(/Verdict: CONFORMANT/);
    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as { checks: { id: string; status: string }[] };
    expect(summary.checks.filter((c) => ['CONTENT-CODING', 'JSON-VALUE-MEMBERS', 'SOAP-ENVELOPE-NS'].includes(c.id)).map((c) => c.status)).toEqual(['passed', 'passed', 'passed']);
  });

  it('of a reference saying gzip of bodies it did not code, asked for gzip: exit 1, CONTENT-CODING failing', async () => {
    const r = await runCli([...LEAN, '--har', await recordWithPolly(notGzip, 'not-gzip', { 'accept-encoding': 'gzip' }), '--report-dir', mkdtempSync(join(tmpdir(), 'polly-run-')), '--quiet']);
    expect([r.code, r.stderr]).toEqual([1, '']);
    expect(r.stdout).toMatch(/✗ CONTENT-CODING \[MUST/);
  });

  it("of a faulty reference: exit 1, the fault's check failing", async () => {
    const r = await runCli([...LEAN, '--har', await recordWithPolly(broken, 'broken'), '--report-dir', mkdtempSync(join(tmpdir(), 'polly-run-')), '--quiet']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/✗ JSONP-CALLBACK \[MUST/);
  });
});

describe("an entry in Polly.JS's form of a coded answer, against the body cap", () => {
  /** An entry whose answer is `body` gzipped, recorded as Polly does: its chunks in base64, a JSON array. */
  const entry = (body: Buffer, chunk: number) => {
    const coded = gzipSync(body);
    const chunks = Array.from({ length: Math.ceil(coded.length / chunk) }, (_, i) => coded.subarray(i * chunk, (i + 1) * chunk).toString('base64'));
    return {
      request: { method: 'POST', url: 'http://svc.test/supportstateuser', headers: [{ name: 'accept-encoding', value: 'gzip' }] },
      response: { status: 200, headers: [{ name: 'content-type', value: 'application/json' }, { name: 'content-encoding', value: 'gzip' }], content: { text: JSON.stringify(chunks), encoding: 'base64' } },
    };
  };
  const body = Buffer.from(JSON.stringify({ pad: 'x'.repeat(40_000), n: [...Array(2000).keys()] }));

  it('within the cap coded and decoded: the bytes decoded, the codings recorded as undone here', () => {
    const ex = exchangeOfEntry(entry(body, 1000), 0, 1 << 20);
    expect(ex.response?.body.equals(body)).toBe(true);
    expect(ex.response?.contentCoding).toEqual({ codings: ['gzip'] });
  });

  it('past the cap once decoded: too large, "once decoded from gzip"', () => {
    expect(exchangeOfEntry(entry(body, 1000), 0, 20_000).error).toEqual({ kind: 'too-large', message: 'response body exceeded the 20000 bytes cap once decoded from gzip' });
  });

  it('past the cap as received: too large, not "once decoded"', () => {
    const coded = gzipSync(body).length;
    expect(exchangeOfEntry(entry(body, 1000), 0, coded - 1).error).toEqual({ kind: 'too-large', message: `response body exceeded the ${coded - 1} bytes cap` });
  });
});
