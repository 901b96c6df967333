// The first bytes of a HAR file: a UTF-8 byte-order mark (Fiddler and other .NET writers put one) is
// skipped, as RFC 8259 8.1 lets a parser do, by the quick reader, the streaming one and standard input
// alike; a gzip-compressed file is refused in one line saying so and how to read it, not as bytes
// that are no JSON.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
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
