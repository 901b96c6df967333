// report.html is read as latin1 and written in pieces (html.ts): the page's bytes come back exactly,
// whatever they hold, the verdict's style and banner are written in UTF-8, and a symlink at the
// output's name is replaced, never written through.
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { selfContained } from '../lib/reporting/html.js';
import { replaceFileInPieces } from '../lib/reporting/replace-file.js';

const work = mkdtempSync(join(tmpdir(), 'html-pieces-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('replaceFileInPieces', () => {
  it('writes a latin1-read page back byte for byte, beside UTF-8 text, across mebibyte pieces', () => {
    // Non-ASCII UTF-8 (é, ≥, an emoji) on both sides of a 1 MiB piece boundary, and bytes that are not UTF-8.
    const page = Buffer.concat([Buffer.from('<html><head></head><body>é≥😀'), Buffer.alloc(1024 * 1024 - 3, 0x61), Buffer.from('€😀 end'), Buffer.from([0xff, 0xc3])]);
    const source = join(work, 'page.html');
    writeFileSync(source, page);
    const read = selfContained(readFileSync(source, 'latin1'));
    const out = join(work, 'report.html');
    replaceFileInPieces(out, [[read.slice(0, 12), 'latin1'], ['<p>verdict ≥ «x»</p>', 'utf8'], [read.slice(12), 'latin1']]);
    expect(readFileSync(out).equals(Buffer.concat([page.subarray(0, 12), Buffer.from('<p>verdict ≥ «x»</p>', 'utf8'), page.subarray(12)]))).toBe(true);
  });

  it('replaces a symlink standing at the name and leaves the file it pointed at as it was', () => {
    const victim = join(work, 'victim.txt');
    writeFileSync(victim, 'victim\n');
    const out = join(work, 'linked.html');
    symlinkSync(victim, out);
    replaceFileInPieces(out, [['new', 'utf8']]);
    expect(readFileSync(out, 'utf8')).toBe('new');
    expect(readFileSync(victim, 'utf8')).toBe('victim\n');
  });
});
