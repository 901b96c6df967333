// The quick HAR reader (lib/traffic/har-entries.ts: each entry found by its bytes and read by
// JSON.parse) against the streaming reader it stands in for: the same exchanges and warnings, with
// the streaming reader taking over (from the file's start, skipping what was judged) wherever the
// quick one cannot read a file as the streaming one would.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { quickHarEntries } from '../lib/traffic/har-entries.js';
import { harExchanges, MAX_HAR_HEADERS } from '../lib/traffic/har.js';

const work = mkdtempSync(join(tmpdir(), 'har-quick-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const record = readFileSync('fixtures/reference/user-details.json', 'utf8');
const soap = readFileSync('fixtures/golden/logout.soap.xml', 'utf8');
const CAP = 10 * 1024 * 1024;

const entry = (n: number, extra: Record<string, unknown> = {}, headers: { name: string; value: string }[] = []) => ({
  startedDateTime: '2026-01-01T00:00:00.000Z', time: n,
  request: { method: 'POST', url: `http://svc.example/supportstateuser?n=${n}`, headers: [{ name: 'Content-Type', value: 'application/json' }], postData: { mimeType: 'application/json', text: '{"userName":"a \\"b\\" \\\\"}' } },
  response: { status: 200, headers: [{ name: 'Content-Type', value: n % 2 ? 'application/xml' : 'application/json' }, ...headers], content: { text: n % 2 ? soap : `${record}\u00e9\u65e5`, size: 1 } },
  ...extra,
});

/** A HAR of `entries`, written by hand so odd members can be put where JSON.stringify would not. */
function harFile(name: string, entries: string[], { before = '', after = '' } = {}): string {
  const path = join(work, name);
  writeFileSync(path, `{${before}"log":{"version":"1.2","creator":{"name":"t","version":"1"},"entries":[\n${entries.join(',\n')}\n]}${after}}`);
  return path;
}

async function read(path: string): Promise<{ ids: string[]; exchanges: unknown[]; warnings: string[] }> {
  const warnings: string[] = [];
  const exchanges = [];
  for await (const ex of harExchanges(path, CAP, 'har', (w) => warnings.push(w))) exchanges.push(ex);
  return { ids: exchanges.map((e) => e.id), exchanges: exchanges.map((e) => ({ ...e, response: e.response && { ...e.response, body: e.response.body.toString('base64') } })), warnings: warnings.map((w) => w.replace(path, 'FILE')) };
}

async function quickCount(path: string): Promise<number | string> {
  let n = 0;
  try { for await (const _ of quickHarEntries(path, CAP)) n++; } catch (e) { return `${(e as Error).name === 'Error' ? 'stopped' : 'threw'} after ${n}: ${(e as Error).message}`; }
  return n;
}

const plain = Array.from({ length: 40 }, (_, n) => JSON.stringify(entry(n)));
// A dotted name at the top: the streaming reader's pick could match it, so the quick reader leaves the whole file to it.
const streamed = (name: string, entries: string[]) => harFile(name, entries, { before: '"x.y":1,' });

describe('the quick HAR reader', () => {
  it('reads a plain recording whole, to the exchanges the streaming reader makes of it', async () => {
    const path = harFile('plain.har', plain);
    expect(await quickCount(path)).toBe(40);
    expect(await quickCount(streamed('plain-streamed.har', plain))).toMatch(/^stopped after 0: a dot in a name/);
    const quick = await read(path);
    expect(quick.ids).toHaveLength(40);
    expect(quick).toStrictEqual(await read(streamed('plain-streamed.har', plain)));
  });

  it('hands an entry with headers past the bound to the streaming reader, which skips the entries judged: each judged once, the warning given once', async () => {
    const many = Array.from({ length: MAX_HAR_HEADERS + 5 }, (_, k) => ({ name: `x-h${k}`, value: 'v' }));
    const entries = plain.map((e, n) => (n === 25 ? JSON.stringify(entry(n, {}, many)) : e));
    const path = harFile('headers.har', entries);
    expect(await quickCount(path)).toMatch(/^stopped after 25: headers past the bound/);
    const quick = await read(path);
    expect(quick.ids).toEqual(Array.from({ length: 40 }, (_, n) => `har.${n + 1}`));
    expect(quick.warnings).toEqual([expect.stringMatching(/FILE entry 26 \(har\.26\): 6 response headers left out/)]);
    expect(quick).toStrictEqual(await read(streamed('headers-streamed.har', entries)));
  });

  it('leaves to the streaming reader what JSON.parse would read otherwise, or what is not plain JSON', async () => {
    const cases: [string, string][] = [
      [harFile('proto.har', [plain[0]!, plain[1]!.replace('"time":1', '"time":1,"__proto__":{"x":1}')]), 'stopped after 1: __proto__'],
      [harFile('escape.har', plain.slice(0, 2), { before: '"l\\u006fg":{},' }), 'stopped after 0: an escape in a name on the path'],
      [harFile('twice.har', plain.slice(0, 2), { after: ',"log":{"entries":[]}' }), 'stopped after 2: a repeated member on the path'],
      [harFile('repeat.har', [plain[0]!, plain[1]!.replace('"time":1', '"time":1,"request":{"headers":[]}')]), 'stopped after 1: repeated member'],
      [harFile('escaped.har', [plain[0]!, plain[1]!.replace('"time":1', '"time":1,"x":"\\u0068"')]), 'stopped after 1: an escaped letter'],
      [harFile('garbage.har', plain.slice(0, 2), { after: ',]' }), 'stopped after 2: not JSON'],
      [harFile('null.har', [plain[0]!, 'null']), 'stopped after 1: an entry that is not an object'],
      // Defects of the recording (har-defects.test.ts): the streaming reader's scan names where.
      [harFile('twice-status.har', [plain[0]!, plain[1]!.replace('"status":200', '"status":200,"status":500')]), 'stopped after 1: a name given twice in an object'],
      [harFile('twice-unread.har', [plain[0]!, plain[1]!.replace('"size":1', '"size":1,"size":2')]), 'stopped after 1: a name given twice in an object'],
      [harFile('status-string.har', [plain[0]!, plain[1]!.replace('"status":200', '"status":"200"')]), 'stopped after 1: a member of another type, or a required one absent'],
      [harFile('not-utf8.har', [plain[0]!.replace('\u00e9', '\u00e9\u0001'), plain[1]!]), 'stopped after 0: not UTF-8'],
    ];
    const notUtf8 = readFileSync(cases[10]![0]);
    writeFileSync(cases[10]![0], notUtf8.map((c) => (c === 1 ? 0xff : c)));
    for (const [path, stop] of cases) expect(await quickCount(path), path).toBe(stop);
    // The streaming reader's own answers: the prototype it sets, and where the JSON breaks.
    expect((await read(cases[0]![0])).ids).toEqual(['har.1', 'har.2']);
    const garbage = readFileSync(cases[5]![0]);
    const stray = garbage.lastIndexOf(',]') + 1;
    await expect(read(cases[5]![0])).rejects.toThrow(`is not a HAR file: line ${garbage.subarray(0, stray).toString('latin1').split('\n').length}, byte offset ${stray}: not valid JSON (an unexpected character; a defect of the recording, not of the service)`);
    await expect(read(cases[6]![0])).rejects.toThrow(/is not a HAR file: line \d+, byte offset \d+: entry 2 is null, where HAR 1\.2 requires an object \(a defect of the recording, not of the service\)$/);
    // A name the harness does not read may repeat: the streaming reader judges the entry.
    expect((await read(cases[8]![0])).ids).toEqual(['har.1', 'har.2']);
  });

  it('leaves an entry larger than the cap to the streaming reader, which caps its strings', async () => {
    const big = JSON.stringify(entry(0, { comment: 'x'.repeat(CAP * 1.4) }));
    const path = harFile('big.har', [plain[0]!, big, plain[2]!]);
    expect(await quickCount(path)).toMatch(/^stopped after 1: an entry larger than the cap/);
    expect((await read(path)).ids).toEqual(['har.1', 'har.2', 'har.3']);
  });
});
