// A recording's entries are bounded like a live message: headers per message (count and bytes), and
// member names capped like string values. Memory is measured on the CLI child (its own peak RSS,
// summary.json peakRss.runBytes); time is never asserted.
import { createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { harExchanges, MAX_HAR_HEADER_BYTES, MAX_HAR_HEADERS } from '../lib/traffic/har.js';
import { runCli } from './helpers/cli.js';

const work = mkdtempSync(join(tmpdir(), 'har-bounds-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const MB = 1e6;
const record = readFileSync('fixtures/reference/user-details.json', 'utf8');

/** A one-entry HAR: a JSON login answered with the reference's record, with extra members written by `extra`. */
async function harFile(name: string, parts: { responseHeaders?: (write: (s: string) => Promise<void>) => Promise<void>; memberName?: (write: (s: string) => Promise<void>) => Promise<void>; requestHeaders?: string }): Promise<string> {
  const path = join(work, name);
  const out = createWriteStream(path);
  const write = (s: string) => new Promise<void>((resolve) => { if (out.write(s)) resolve(); else out.once('drain', () => resolve()); });
  await write('{"log":{"version":"1.2","creator":{"name":"t","version":"1"},"entries":[{"startedDateTime":"2026-01-01T00:00:00Z","time":1,');
  if (parts.memberName) { await write('"'); await parts.memberName(write); await write('":1,'); }
  await write(`"request":{"method":"POST","url":"http://svc.example/json/reply/SupportStateUserLoginRequest","headers":[{"name":"Content-Type","value":"application/json"}${parts.requestHeaders ?? ''}],"postData":{"mimeType":"application/json","text":"{\\"userName\\":\\"a\\"}"}},`);
  await write('"response":{"status":200,"headers":[{"name":"Content-Type","value":"application/json"}');
  await parts.responseHeaders?.(write);
  await write(`],"content":{"mimeType":"application/json","text":${JSON.stringify(record)}}}}]}}`);
  await new Promise<void>((resolve, reject) => out.end((e?: Error | null) => (e ? reject(e) : resolve())));
  return path;
}

const summaryOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as { verdict: string; warnings: string[]; peakRss: { runBytes: number }; counts: { exchanges: { exchanges: number } } };

describe('HAR headers per message are bounded by count and bytes, and what was left out is named', () => {
  it('an entry with 300,000 response headers keeps 2,000, warns naming the entry, and the run stays under 300 MB', async () => {
    const path = await harFile('headers.har', {
      responseHeaders: async (write) => { for (let i = 0; i < 300; i++) await write(Array.from({ length: 1000 }, (_, j) => `,{"name":"x-h${i * 1000 + j}","value":"v${i * 1000 + j}"}`).join('')); },
    });
    const dir = mkdtempSync(join(work, 'r-'));
    const r = await runCli(['--har', path, '--report-dir', dir, '--quiet', '--reports', 'summary']);
    expect([r.code, r.stderr]).toEqual([0, '']);
    const s = summaryOf(dir);
    // 300,001 response headers in all (Content-Type among them): 2,000 kept.
    const warning = `${path} entry 1 (har.1): 298001 response headers left out (a message is read to 2,000 headers and 256 KiB of them, as a live one is bounded)`;
    expect(s.warnings).toEqual([warning]);
    expect(r.stdout).toContain(`Warning: ${warning}`);
    expect(s.peakRss.runBytes / MB).toBeLessThan(300);
  }, 180_000);

  it('headers past 256 KiB of names and values are left out, request and response counted apart', async () => {
    const big = (n: number, side: string) => Array.from({ length: n }, (_, i) => `,{"name":"x-${side}${i}","value":"${'v'.repeat(10_000)}"}`).join('');
    const path = await harFile('bytes.har', { requestHeaders: big(40, 'q'), responseHeaders: (write) => write(big(3, 'r')) });
    const warnings: string[] = [];
    const exchanges = [];
    for await (const ex of harExchanges(path, 10 * 1024 * 1024, 'har', (w) => warnings.push(w))) exchanges.push(ex);
    expect(exchanges).toHaveLength(1);
    const requestHeaders = Object.keys(exchanges[0]!.request.headers);
    // Content-Type (12 + 16 characters), then 10,005-character headers while the sum stays within 256 KiB.
    const kept = Math.floor((MAX_HAR_HEADER_BYTES - 28) / 10_005);
    expect(requestHeaders).toHaveLength(1 + kept);
    expect(requestHeaders.at(-1)).toBe(`x-q${kept - 1}`);
    expect(Object.keys(exchanges[0]!.response!.headers)).toEqual(['content-type', 'x-r0', 'x-r1', 'x-r2']);
    expect(warnings).toEqual([`${path} entry 1 (har.1): ${40 - kept} request headers left out (a message is read to ${MAX_HAR_HEADERS.toLocaleString('en')} headers and 256 KiB of them, as a live one is bounded)`]);
  });

  it('an entry within both bounds loses nothing and warns of nothing', async () => {
    const path = await harFile('within.har', { responseHeaders: (write) => write(Array.from({ length: MAX_HAR_HEADERS - 1 }, (_, i) => `,{"name":"x-${i}","value":"v"}`).join('')) });
    const warnings: string[] = [];
    const exchanges = [];
    for await (const ex of harExchanges(path, 10 * 1024 * 1024, 'har', (w) => warnings.push(w))) exchanges.push(ex);
    expect(Object.keys(exchanges[0]!.response!.headers)).toHaveLength(MAX_HAR_HEADERS);
    expect(warnings).toEqual([]);
  });
});

describe('HAR member names are capped like string values', () => {
  it('a 200 MB member name costs the cap, not its size: the entry is judged and the run stays under 300 MB', async () => {
    const chunk = 'n'.repeat(1024 * 1024);
    const path = await harFile('name.har', { memberName: async (write) => { for (let i = 0; i < 200; i++) await write(chunk); } });
    const dir = mkdtempSync(join(work, 'r-'));
    const r = await runCli(['--har', path, '--report-dir', dir, '--quiet', '--reports', 'summary']);
    expect([r.code, r.stderr]).toEqual([0, '']);
    const s = summaryOf(dir);
    expect(s.counts.exchanges.exchanges).toBe(1);
    expect(s.peakRss.runBytes / MB).toBeLessThan(300);
  }, 180_000);

  it('a number longer than the cap is read as a string past the cap, not assembled', async () => {
    const path = join(work, 'number.har');
    writeFileSync(path, `{"log":{"entries":[{"request":{"method":"GET","url":"http://svc.example/x","headers":[]},"response":{"status":${'9'.repeat(2000)},"headers":[],"content":{"text":""}}}]}}`);
    const exchanges = [];
    for await (const ex of harExchanges(path, 1024, 'har')) exchanges.push(ex);
    expect(exchanges[0]!.error?.message).toBe('no response recorded in the HAR');
  });
});
