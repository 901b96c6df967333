// An accounts file is sent as written or not at all: bytes that are not UTF-8 (which decoding would
// turn into U+FFFD and send as a changed account) and a key given twice (which JSON.parse would take
// last-wins) stop the run with exit 2 and one line naming the file, the line and the byte offset or
// the key, before anything is sent.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCases, validateAccounts } from '../lib/engine/accounts.js';
import { runCli } from './helpers/cli.js';
import { startHostile, type Hostile } from './helpers/hostile.js';

const work = mkdtempSync(join(tmpdir(), 'accounts-input-'));
const file = (name: string, bytes: string | Buffer) => { const p = join(work, name); writeFileSync(p, bytes); return p; };
const login = (userName: string) => `{"SupportStateUserLoginRequest":{"userName":"${userName}"}}`;

let counting: Hostile;
beforeAll(async () => { counting = await startHostile('silent'); });
afterAll(async () => { await counting.close(); rmSync(work, { recursive: true, force: true }); });

const refused = async (path: string) => {
  const r = await runCli(['--base-url', counting.url, '--accounts', path, '--report-dir', mkdtempSync(join(work, 'r-')), '--quiet']);
  return { code: r.code, stderr: r.stderr, out: r.stdout + r.stderr };
};

describe('bytes that are not UTF-8 are refused, naming the line and the byte offset', () => {
  it('JSON Lines: caf\\xE9 on line 2 is exit 2, "line 2: not valid UTF-8 at byte offset 48", nothing sent', async () => {
    const path = file('latin1.jsonl', Buffer.concat([Buffer.from(`${login('ana')}\n{"SupportStateUserLoginRequest":{"userName":"caf`), Buffer.from([0xe9]), Buffer.from('"}}\n')]));
    const r = await refused(path);
    expect([r.code, r.stderr]).toEqual([2, `conformance: ${path} line 2: not valid UTF-8 at byte offset 48 of the line\n`]);
    expect(r.out).not.toContain('\ufffd');
    expect(counting.requests()).toBe(0);
  });

  it('CSV: an overlong encoding on line 3 is exit 2, naming line 3 and its byte offset, nothing sent', async () => {
    const path = file('overlong.csv', Buffer.concat([Buffer.from('SupportStateUserLoginRequest.userName,SupportStateUserLoginRequest.searchValues\nana,x\nbo,'), Buffer.from([0xc0, 0xaf]), Buffer.from('\n')]));
    const r = await refused(path);
    expect([r.code, r.stderr]).toEqual([2, `conformance: ${path} line 3: not valid UTF-8 at byte offset 3 of the line\n`]);
    expect(counting.requests()).toBe(0);
  });

  it('a sequence the file ends inside, a surrogate and a lone continuation byte are each refused at their own offset', async () => {
    const cases: [Buffer, number, number][] = [
      [Buffer.concat([Buffer.from(`${login('ana')}\n${login('bo')}`), Buffer.from([0xe2, 0x82])]), 2, login('bo').length],
      [Buffer.concat([Buffer.from('{"SupportStateUserLoginRequest":{"userName":"'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}}\n')]), 1, 45],
      [Buffer.concat([Buffer.from(`\n\n${login('ana')}\n{"SupportStateUserLoginRequest":{"userName":"x`), Buffer.from([0x80]), Buffer.from('"}}\n')]), 4, 46],
    ];
    for (const [i, [bytes, line, offset]] of cases.entries()) {
      const path = file(`bad-${i}.jsonl`, bytes);
      expect(await validateAccounts(path)).toEqual({ error: `${path} line ${line}: not valid UTF-8 at byte offset ${offset} of the line` });
    }
  });

  it('characters of 2, 3 and 4 bytes, one cut by every chunk boundary of the read, are read as written', async () => {
    // 64 KiB reads: a line of 'é€😀' repeated crosses many boundaries at every position in a character.
    const names = Array.from({ length: 40 }, (_, i) => `${i}${'é€😀'.repeat(1500 + i)}`);
    const path = file('multibyte.jsonl', `${names.map(login).join('\n')}\n`);
    expect(await validateAccounts(path)).toEqual({ cases: 40 });
    const read: string[] = [];
    for await (const c of readCases(path)) if ('requests' in c) read.push(String([...c.requests.values()][0]!.userName));
    expect(read).toEqual(names);
  });
});

describe('a key given twice is refused, naming it', () => {
  it('a field twice in one request: exit 2, the key named, nothing sent', async () => {
    const path = file('twice-field.jsonl', `${login('ana')}\n{"SupportStateUserLoginRequest":{"userName":"SECRET-ONE","searchValues":"x","userName":"SECRET-TWO"}}\n`);
    const r = await refused(path);
    expect([r.code, r.stderr]).toEqual([2, `conformance: ${path} line 2: key $.SupportStateUserLoginRequest.userName appears twice (which would win?)\n`]);
    expect(r.out).not.toMatch(/SECRET-(ONE|TWO)/);
    expect(counting.requests()).toBe(0);
  });

  it('a request twice on one line: exit 2, the request named', async () => {
    const path = file('twice-request.jsonl', `{"SupportStateUserLoginRequest":{"userName":"a"},"SupportStateUserLoginRequest":{"userName":"b"}}\n`);
    const r = await refused(path);
    expect([r.code, r.stderr]).toEqual([2, `conformance: ${path} line 1: key $.SupportStateUserLoginRequest appears twice (which would win?)\n`]);
    expect(counting.requests()).toBe(0);
  });
});

describe('a CSV file whose rows end with other line breaks than its header', () => {
  it('an LF header with CRLF rows, a CRLF header with LF rows, and CR: every cell read without a line break', async () => {
    const header = 'SupportStateUserLoginRequest.userName,SupportStateUserLoginRequest.searchValues';
    for (const [name, text] of [['lf-crlf', `${header}\na,x\r\nb,y\r\n`], ['crlf-lf', `${header}\r\na,x\nb,y\n`], ['cr', `${header}\ra,x\rb,y\r`]] as const) {
      const path = file(`${name}.csv`, text);
      expect(await validateAccounts(path), name).toEqual({ cases: 2 });
      const read: string[] = [];
      for await (const c of readCases(path)) if ('requests' in c) read.push(JSON.stringify([...c.requests.values()][0]));
      expect(read, name).toEqual(['{"userName":"a","searchValues":"x"}', '{"userName":"b","searchValues":"y"}']);
    }
  });
});

// A row is named by the line it starts on, whatever line breaks its quoted cells hold: csv-parse
// counts a CRLF inside a quoted cell as two lines and says where a row ends, so every later account
// was named one line too far (replay.sh asked for the values of the account on the next line).
describe('a CSV row after a quoted cell holding a line break', () => {
  const header = 'SupportStateUserLoginRequest.userName,SupportStateUserLoginRequest.searchValues';
  it.each([
    ['CRLF', '\r\n'],
    ['LF', '\n'],
    ['CR', '\r'],
  ])('%s: each row named by the line it starts on, a refused row too', async (_name, nl) => {
    const text = [header, 'ann,s1', '"two', `lines",s2`, 'bob,s3', '', 'carol,s4', '"a', 'b', 'c",s5', 'dave,s6', ''].join(nl);
    const lines: Array<[string, number]> = [];
    for await (const c of readCases(file(`multi-${_name}.csv`, text))) if ('requests' in c) lines.push([String([...c.requests.values()][0]!.userName), c.line]);
    expect(lines).toEqual([['ann', 2], [`two${nl}lines`, 3], ['bob', 5], ['carol', 7], [`a${nl}b${nl}c`, 8], ['dave', 11]]);
    const bad = file(`multi-bad-${_name}.csv`, [`${header},ConfirmEmailRequest.ownerId`, '"x', 'y",s1,1', 'bob,s3,nope', ''].join(nl));
    expect(await validateAccounts(bad)).toEqual({ error: `${bad} line 4: ConfirmEmailRequest.ownerId must be a 32-bit integer` });
  });
});
