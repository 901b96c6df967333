// A second HAR writer nobody here wrote and that has nothing to do with Chromium: Polly.JS, whose
// node-http adapter records what a Node client sends and its fs persister writes a HAR 1.2 file.
// The harness judges that file as it judges Chromium's: conformant for the reference, the fault's
// check failing for a faulty one.
import { mkdtempSync, readdirSync, statSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import NodeHttpAdapter from '@pollyjs/adapter-node-http';
import { Polly } from '@pollyjs/core';
import FSPersister from '@pollyjs/persister-fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReference, type RunningReference } from '../lib/reference/server.js';
import { FAULTS } from '../lib/reference/variants.js';
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
async function recordWithPolly(ref: RunningReference, name: string): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'polly-'));
  const polly = new Polly(name, { adapters: ['node-http'], persister: 'fs', persisterOptions: { fs: { recordingsDir: dir } }, mode: 'record', logLevel: 'silent' });
  try {
    expect(await send(ref.url, '/supportstateuser', JSON_TYPE, '{"userName":"jdoe.support"}')).toBe(200);
    expect(await send(ref.url, '/json/reply/SupportStateUserLoginRequest?callback=cb', JSON_TYPE, '{}')).toBe(200);
    expect(await send(ref.url, '/user/confirmemail', JSON_TYPE, '{"recoveryToken":"r","ownerId":7}')).toBe(200);
    expect(await send(ref.url, '/soap11', { 'content-type': 'text/xml; charset=utf-8', soapaction: 'ImpersonateLogoutRequest' }, SOAP_REQUEST)).toBe(200);
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
  beforeAll(async () => { [plain, broken] = await Promise.all([startReference(), startReference({ variants: FAULTS.filter((f) => f.name === 'callback-renamed') })]); });
  afterAll(async () => { await Promise.all([plain.close(), broken.close()]); });

  it('of the reference: conformant, every recorded exchange judged', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'polly-run-'));
    const r = await runCli([...LEAN, '--har', await recordWithPolly(plain, 'plain'), '--report-dir', dir, '--quiet']);
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toMatch(/judged 4 recorded exchanges/);
    expect(r.stdout).toMatch(/Verdict: CONFORMANT/);
  });

  it("of a faulty reference: exit 1, the fault's check failing", async () => {
    const r = await runCli([...LEAN, '--har', await recordWithPolly(broken, 'broken'), '--report-dir', mkdtempSync(join(tmpdir(), 'polly-run-')), '--quiet']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/✗ JSONP-CALLBACK \[MUST/);
  });
});
