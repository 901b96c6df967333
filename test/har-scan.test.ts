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
    const bytes = har(entry('{"status":200,"content":{"text":"\u00e9\\"\\\\"}}'), entry('{"status":null,"x":1,"x":2}'));
    for (const size of SIZES) expect(scanned(bytes, size), `chunks of ${size}`).toBe('read');
  });

  it('names the same first defect, at the same line and offset, whatever the chunks', () => {
    const bad = Buffer.from([0xf0, 0x9f, 0x98]); // a 4-byte character's first three bytes, then a quote
    const cut = har(entry('{"status":200}'));
    const cases: [Buffer, string | Buffer, string][] = [
      [har(entry('{"status":200}'), entry('{"status":200,"stat\\u0075s":201}')), '"stat\\u0075s"', 'entry 2 names response.status twice'],
      [har(entry('{"status":"200"}')), '"200"', 'entry 1 has response.status as a string'],
      [Buffer.concat([cut.subarray(0, 40), bad, cut.subarray(40)]), bad, 'not UTF-8'],
      [Buffer.from('{"log":{"entries":[],\n"entries":[]}}'), '"entries":[]}', 'the file names log.entries twice'],
    ];
    for (const [bytes, mark, says] of cases) {
      const at = bytes.indexOf(mark);
      const where = `line ${bytes.subarray(0, at).toString('latin1').split('\n').length}, byte offset ${at}: ${says}`;
      for (const size of SIZES) expect(scanned(bytes, size).slice(0, where.length), `${says}, chunks of ${size}`).toBe(where);
    }
  });
});
