// The first bytes of a HAR file: a UTF-8 byte-order mark (Fiddler and other .NET writers put one) is
// skipped, as RFC 8259 8.1 lets a parser do, by the quick reader, the streaming one and standard input
// alike; a gzip-compressed file is refused in one line saying so and how to read it, not as bytes
// that are no JSON.
import { spawn } from 'node:child_process';
import { Readable } from 'node:stream';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { HarScan } from '../lib/traffic/har-scan.js';
import { childEnv, LEAN, ROOT, runCli } from './helpers/cli.js';
import { readHar as read } from './helpers/har-read.js';
import { owned } from './helpers/owned-children.js';

const work = mkdtempSync(join(tmpdir(), 'har-mark-gzip-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const entry = (n: number) => `{"startedDateTime":"2026-01-01T00:00:00Z","time":${n},"request":{"method":"GET","url":"http://svc.example/x","headers":[]},"response":{"status":0,"headers":[],"content":{}}}`;
/** A HAR of two entries; `dotted`: a name at the top the quick reader leaves to the streaming one. */
const har = (dotted = false) => Buffer.from(`{${dotted ? '"x.y":1,' : ''}"log":{"version":"1.2","creator":{"name":"t","version":"1"},"entries":[\n${entry(1)},\n${entry(2)}\n]}}\n`);
const file = (name: string, bytes: Buffer) => { const p = join(work, name); writeFileSync(p, bytes); return p; };


describe('a HAR file starting with a UTF-8 byte-order mark', () => {
  it('is read whole by the quick reader and by the streaming one', async () => {
    expect(await read(file('quick.har', Buffer.concat([BOM, har()])))).toEqual({ ids: ['har.1', 'har.2'] });
    expect(await read(file('streamed.har', Buffer.concat([BOM, har(true)])))).toEqual({ ids: ['har.1', 'har.2'] });
  });

  it('is read whole from standard input', async () => {
    const child = owned(spawn(process.execPath, ['bin/run.mjs', 'cli/main', ...LEAN, '--har', '-', '--report-dir', mkdtempSync(join(work, 'r-')), '--quiet'], { cwd: ROOT, env: childEnv(), detached: true }), true);
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => { stderr += d; });
    child.stdin.end(Buffer.concat([BOM, har()]));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    // Two entries of no answer judge nothing of the interface (exit 2, saying so), but both were read.
    expect([code, stderr]).toEqual([2, 'conformance: nothing of this interface was observed (2 exchange(s) of other services)\n']);
  });

  it('is skipped by the byte check in chunks of any size, and a character begun as one and another is refused at byte 0', () => {
    const bytes = Buffer.concat([BOM, har()]);
    for (const size of [1, 2, 3, 4, 64]) {
      const scan = new HarScan();
      let skipped = 0;
      for (let i = 0; i < bytes.length; i += size) skipped += scan.chunk(bytes.subarray(i, i + size));
      scan.end();
      expect(skipped, `chunks of ${size}`).toBe(3);
    }
    const other = Buffer.concat([Buffer.from([0xef, 0xbb, 0x80]), har()]); // U+FEC0, valid UTF-8, no JSON
    for (const size of [1, 2, 64]) {
      const scan = new HarScan();
      expect(() => { for (let i = 0; i < other.length; i += size) scan.chunk(other.subarray(i, i + size)); }, `chunks of ${size}`)
        .toThrow('line 1, byte offset 0: not valid JSON (an unexpected character; a defect of the recording, not of the service)');
    }
  });

  it('is not skipped anywhere but at the start: one after the first byte is refused where it stands', async () => {
    const r = await read(file('inner.har', Buffer.concat([Buffer.from(' '), BOM, har()])));
    expect(r.refused).toMatch(/ is not a HAR file: line 1, byte offset 1: not valid JSON \(an unexpected character; /);
  });
});

describe('a gzip-compressed HAR file', () => {
  const GZIP = 'line 1, byte offset 0: the file is gzip-compressed (it starts with 1f 8b, gzip\'s magic number), not JSON: decompress it first (gunzip -k), or pipe gunzip -c into --har - (standard input)';

  it('is refused naming the compression and the way to read it', async () => {
    const path = file('recording.har.gz', gzipSync(har()));
    expect(await read(path)).toEqual({ ids: [], refused: `${path} is not a HAR file: ${GZIP}` });
  });

  it('is refused by the CLI in one line, exit 2', async () => {
    const path = file('cli.har.gz', gzipSync(har()));
    const r = await runCli([...LEAN, '--har', path, '--report-dir', mkdtempSync(join(work, 'r-')), '--quiet']);
    expect([r.code, r.stderr]).toEqual([2, `conformance: ${path} is not a HAR file: ${GZIP}\n`]);
  });
});

/** What the reader makes of standard input delivering `bytes` one byte per chunk. */
async function readStdinByteByByte(bytes: Buffer): Promise<{ ids: string[]; refused?: string }> {
  const stdin = vi.spyOn(process, 'stdin', 'get').mockReturnValue(Readable.from([...bytes].map((b) => Buffer.from([b]))) as typeof process.stdin);
  try {
    return await read('-');
  } finally {
    stdin.mockRestore();
  }
}

describe('a compressed HAR file of another kind than gzip', () => {
  // Each format's magic number, then bytes of no JSON: the refusal rests on the first bytes alone.
  const KINDS: readonly [string, number[], string][] = [
    ['zip', [0x50, 0x4b, 0x03, 0x04], 'the file is a zip archive (it starts with 50 4b 03 04, zip\'s magic number), not JSON: extract it first (unzip), or pipe unzip -p into --har - (standard input)'],
    ['zstd', [0x28, 0xb5, 0x2f, 0xfd], 'the file is zstd-compressed (it starts with 28 b5 2f fd, zstd\'s magic number), not JSON: decompress it first (zstd -d), or pipe zstd -dc into --har - (standard input)'],
    ['xz', [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00], 'the file is xz-compressed (it starts with fd 37 7a 58 5a 00, xz\'s magic number), not JSON: decompress it first (xz -dk), or pipe xz -dc into --har - (standard input)'],
    ['bzip2', [0x42, 0x5a, 0x68], 'the file is bzip2-compressed (it starts with 42 5a 68, bzip2\'s magic number), not JSON: decompress it first (bzip2 -dk), or pipe bzip2 -dc into --har - (standard input)'],
  ];
  const packed = (magic: number[]) => Buffer.concat([Buffer.from(magic), Buffer.from([0x39, 0xc3, 0x28, 0x00, 0xff]), har()]);

  it.each(KINDS)('%s is refused naming what it is and how to read it, at byte 0, from a file and from standard input byte by byte', async (kind, magic, what) => {
    const path = file(`recording.har.${kind}`, packed(magic));
    expect(await read(path)).toEqual({ ids: [], refused: `${path} is not a HAR file: line 1, byte offset 0: ${what}` });
    expect(await readStdinByteByByte(packed(magic))).toEqual({ ids: [], refused: `standard input is not a HAR file: line 1, byte offset 0: ${what}` });
  });

  it('is refused by the CLI in one line, exit 2', async () => {
    const [, magic, what] = KINDS[0]!;
    const path = file('cli.har.zip', packed(magic));
    const r = await runCli([...LEAN, '--har', path, '--report-dir', mkdtempSync(join(work, 'r-')), '--quiet']);
    expect([r.code, r.stderr]).toEqual([2, `conformance: ${path} is not a HAR file: line 1, byte offset 0: ${what}\n`]);
  });

  it('a file that only begins as a magic number does is refused as before, where it stops being JSON', async () => {
    // "BZ" then JSON's own bytes: no bzip2 (its third byte is h), no JSON from byte 0.
    expect(await readStdinByteByByte(Buffer.concat([Buffer.from('BZ'), har()]))).toEqual({ ids: [], refused: 'standard input is not a HAR file: line 1, byte offset 0: not valid JSON (a bare word, where JSON has only true, false and null; a defect of the recording, not of the service)' });
    expect(await readStdinByteByByte(Buffer.from([0x1f]))).toEqual({ ids: [], refused: 'standard input is not a HAR file: line 1, byte offset 0: not valid JSON (an unexpected character; a defect of the recording, not of the service)' });
  });
});

describe('a gzip-compressed HAR on standard input', () => {
  it('is named when its bytes come one at a time', async () => {
    expect(await readStdinByteByByte(gzipSync(har()))).toEqual({ ids: [], refused: 'standard input is not a HAR file: line 1, byte offset 0: the file is gzip-compressed (it starts with 1f 8b, gzip\'s magic number), not JSON: decompress it first (gunzip -k), or pipe gunzip -c into --har - (standard input)' });
  });

  it('a plain HAR coming byte by byte is read whole', async () => {
    expect(await readStdinByteByByte(har())).toEqual({ ids: ['har.1', 'har.2'] });
  });
});
