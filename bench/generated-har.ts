// A HAR of a chosen size for measuring (npm run bench) and for the memory test: the reference's real
// answers to the page's kinds of request, repeated, written as a stream (never held whole).
import { createWriteStream, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_NAMESPACES } from '../lib/contract/namespaces.js';
import { soapRequestBody } from '../lib/engine/probes.js';
import { startReference } from '../lib/reference/server.js';

const ASSET_BYTES = 256 * 1024;

/** A static asset a page loads beside the service's calls (not this interface): `bytes` of script. */
function assetEntry(url: string, n: number, bytes: number): string {
  const line = `/* asset ${n}: not this interface */\n`;
  const text = line.repeat(Math.ceil(bytes / line.length)).slice(0, bytes);
  return JSON.stringify({
    startedDateTime: new Date(0).toISOString(), time: 1, cache: {}, timings: { send: 0, wait: 1, receive: 0 },
    request: { method: 'GET', url: `${url}/static/bundle-${n}.js`, httpVersion: 'HTTP/1.1', headers: [], queryString: [], cookies: [], headersSize: -1, bodySize: 0 },
    response: { status: 200, statusText: 'OK', httpVersion: 'HTTP/1.1', headers: [{ name: 'content-type', value: 'text/javascript' }], cookies: [], content: { size: text.length, mimeType: 'text/javascript', text }, redirectURL: '', headersSize: -1, bodySize: text.length },
  });
}

/** A HAR of about `mib` MiB; its path, size and number of entries (of this interface: `calls`).
 *  `calls`: MiB of the service's calls, the rest of the file being static assets of 256 KiB spread among
 *  them (a large file judged cheaply: the memory test's); all calls when not given. */
export async function generatedHar(mib: number, { callsMib }: { callsMib?: number } = {}): Promise<{ path: string; bytes: number; entries: number; calls: number }> {
  const ref = await startReference();
  const calls: [string, Record<string, string>, string][] = [
    ['/supportstateuser', { 'content-type': 'application/json' }, '{"userName":"jdoe.support"}'],
    ['/supportstateuser?callback=cb', { 'content-type': 'application/json' }, '{"userName":"user7","searchValues":"s7"}'],
    ['/user/confirmemail', { 'content-type': 'application/json' }, '{"recoveryToken":"r","ownerId":7}'],
    ['/soap11', { 'content-type': 'text/xml; charset=utf-8', soapaction: 'ImpersonateLogoutRequest' }, soapRequestBody(DEFAULT_NAMESPACES)],
  ];
  const entries = [];
  for (const [path, headers, body] of calls) {
    const r = await fetch(`${ref.url}${path}`, { method: 'POST', headers, body });
    const text = await r.text();
    entries.push(JSON.stringify({
      startedDateTime: new Date().toISOString(), time: 3, cache: {}, timings: { send: 0, wait: 3, receive: 0 },
      request: { method: 'POST', url: `${ref.url}${path}`, httpVersion: 'HTTP/1.1', headers: Object.entries(headers).map(([name, value]) => ({ name, value })), queryString: [], cookies: [], headersSize: -1, bodySize: body.length, postData: { mimeType: headers['content-type'], text: body } },
      response: { status: r.status, statusText: 'OK', httpVersion: 'HTTP/1.1', headers: [...r.headers].map(([name, value]) => ({ name, value })), cookies: [], content: { size: text.length, mimeType: r.headers.get('content-type'), text }, redirectURL: '', headersSize: -1, bodySize: text.length },
    }));
  }
  await ref.close();
  const path = join(mkdtempSync(join(tmpdir(), 'bench-har-')), 'generated.har');
  const out = createWriteStream(path);
  const write = (t: string) => (out.write(t) ? Promise.resolve() : new Promise<void>((r) => out.once('drain', () => r())));
  await write('{"log":{"version":"1.2","creator":{"name":"bench","version":"1"},"entries":[');
  let bytes = 0;
  let n = 0;
  let made = 0;
  let sinceAsset = 0;
  // With `callsMib`, an asset after every `assetEvery` calls spreads the assets through the file.
  const average = entries.reduce((a, e) => a + e.length + 1, 0) / entries.length;
  const assets = callsMib === undefined ? 0 : Math.max(1, Math.ceil((mib - callsMib) * 1024 * 1024 / ASSET_BYTES));
  const assetEvery = assets ? Math.max(1, Math.floor((callsMib! * 1024 * 1024) / average / assets)) : Infinity;
  while (bytes < mib * 1024 * 1024) {
    const asset = sinceAsset >= assetEvery;
    const e = asset ? assetEntry(ref.url, n - made, ASSET_BYTES) : entries[made % entries.length]!;
    if (asset) sinceAsset = 0;
    else { made++; sinceAsset++; }
    await write(`${n ? ',' : ''}${e}`);
    bytes += e.length + 1;
    n++;
  }
  await write(']}}');
  await new Promise<void>((r) => out.end(() => r()));
  return { path, bytes, entries: n, calls: made };
}
