// The HAR byte check (lib/traffic/har-scan.ts) sees a file in whatever chunks a reader hands it (the
// quick reader's 256 KiB, a file stream's 64 KiB, standard input's pipe): the first defect it names,
// and where, do not depend on them; a character or a name cut by a chunk's end is read whole.
import { describe, expect, it } from 'vitest';
import { HarScan } from '../lib/traffic/har-scan.js';

/** What the check says of `bytes` handed over in chunks of `size`: the refusal, or "read". */
function scanned(bytes: Buffer, size: number): string {
  const scan = new HarScan();
  try {
    for (let i = 0; i < bytes.length; i += size) scan.chunk(bytes.subarray(i, i + size));
    scan.end();
  } catch (e) {
    return (e as Error).message;
  }
  return 'read';
}

const entry = (response: string) => `{"request":{"method":"GET","url":"http://x/\u00e9\u65e5\u{1f600}","headers":[{"name":"A","value":"\u00e9"}]},\n"response":${response}}`;
const har = (...entries: string[]) => Buffer.from(`{"log":{"entries":[\n${entries.join(',\n')}]}}`);
const SIZES = [1, 2, 3, 5, 64, 1 << 20];

describe('the HAR byte check, in any chunks', () => {
  it('reads a well-formed file, its characters of 2, 3 and 4 bytes cut at every place, as read', () => {
    const bytes = har(entry('{"status":200,"headers":[],"content":{"text":"\u00e9\\"\\\\"}}'), entry('{"status":0,"headers":[],"content":{"text":null},"x":1,"x":2}'));
    for (const size of SIZES) expect(scanned(bytes, size), `chunks of ${size}`).toBe('read');
  });

  it('names the same first defect, at the same line and offset, whatever the chunks', () => {
    const bad = Buffer.from([0xf0, 0x9f, 0x98]); // a 4-byte character's first three bytes, then a quote
    const whole = '{"status":200,"headers":[],"content":{"text":"a"}}';
    const cut = har(entry(whole));
    // The bytes, the first of a mark and how far into it the defect is, what is said.
    const cases: [Buffer, string | Buffer, number, string][] = [
      [har(entry(whole), entry('{"status":200,"headers":[],"content":{},"stat\\u0075s":201}')), '"stat\\u0075s"', 0, 'entry 2 names response.status twice'],
      [har(entry('{"status":"200"}')), '"200"', 0, 'entry 1 has response.status as a string'],
      [Buffer.concat([cut.subarray(0, 40), bad, cut.subarray(40)]), bad, 0, 'not UTF-8'],
      [Buffer.from('{"log":{"entries":[],\n"entries":[]}}'), '"entries":[]}', 0, 'the file names log.entries twice'],
      // A required member absent is named where its object closes; one null, where the null is.
      [har(entry(whole), entry('{"headers":[],"content":{}}')), '{}}}', 2, 'entry 2 has no response.status, which HAR 1.2 requires'],
      [har(entry(whole), entry('{"status":200,"headers":[{"name":null,"value":"b"}],"content":{}}')), 'null', 0, 'entry 2 has response.headers[0].name as null, where HAR 1.2 requires a string'],
      // Not JSON: where it stops being JSON, not what a misread structure would lack.
      [har(entry('{"status":200 "headers":[],"content":{}}')), '200 "headers"', 4, 'not valid JSON (a missing comma'],
      [har(entry('{"status":01,"headers":[],"content":{}}')), ':01', 2, 'not valid JSON (a malformed number'],
      [Buffer.from('{"log":{"entries":[],}}'), ',}', 1, 'not valid JSON (a trailing comma'],
      [Buffer.from('{"log":{"entries":[]}}\u00e9'), Buffer.from('\u00e9'), 0, 'not valid JSON (text after the top-level value'],
      [Buffer.from('{"log":{"entries":[]},"a":"b'), '"b', 2, 'not valid JSON (the file ends inside a string'],
      // A control character (the parser's to find in a string) before a defect the scan finds is named first.
      [har(entry('{"status":200,"headers":[],"content":{"text":"a\tb"},"status":1}')), '\tb', 0, 'not valid JSON (a control character inside a string'],
    ];
    for (const [bytes, mark, skip, says] of cases) {
      const at = bytes.indexOf(mark) + skip;
      const where = `line ${bytes.subarray(0, at).toString('latin1').split('\n').length}, byte offset ${at}: ${says}`;
      for (const size of SIZES) expect(scanned(bytes, size).slice(0, where.length), `${says}, chunks of ${size}`).toBe(where);
    }
  });
});
