// report.html is read as latin1 and written in pieces (html.ts): the page's bytes come back exactly,
// whatever they hold, the verdict's style and banner are written in UTF-8, and a symlink at the
// output's name is replaced, never written through. It is built from the allure results linked, or
// copied into RAM when they are on a disk: the report's own results keep their bytes.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statfsSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_NAMESPACES } from '../lib/contract/namespaces.js';
import { runConformance } from '../lib/engine/run.js';
import { htmlWorkPlace, selfContained, writeHtmlReport } from '../lib/reporting/html.js';
import { PROJECT_ROOT } from '../lib/paths.js';
import { Redactor } from '../lib/reporting/redact.js';
import { replaceFileInPieces } from '../lib/reporting/replace-file.js';
import { buildReport } from '../lib/reporting/report.js';

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

/** A directory on the disk the project is on (the suite's temporary files are in RAM): where a user's
 *  report directory usually is. */
const onDisk = mkdtempSync(join(PROJECT_ROOT, '.html-pieces-'));
afterAll(() => rmSync(onDisk, { recursive: true, force: true }));

describe('writeHtmlReport', () => {
  it('builds beside results already in RAM, and copies results on a disk into RAM when it has one', (ctx) => {
    expect(htmlWorkPlace(work)).toBe('beside');
    if (!existsSync('/dev/shm') || statfsSync(onDisk).type === statfsSync('/dev/shm').type) ctx.annotate('no RAM file system apart from the project\'s: both are built beside');
    else expect(htmlWorkPlace(onDisk)).toBe('ram');
  });

  it.each([['the suite\'s temporary directory', work], ['the project\'s disk', onDisk]])('leaves the allure results it is built from byte for byte as they were, attachments it indents included, in %s', async (_, base) => {
    const dir = join(base, 'reports');
    const results = join(dir, 'allure-results');
    mkdirSync(results, { recursive: true });
    // A result whose response attachment the writer indents (a new attachment, the result rewritten).
    const response = 'HTTP/1.1 200 OK\ncontent-type: application/json\n\n{"userName":"a","searchValues":"b"}';
    writeFileSync(join(results, 'a-attachment.txt'), response);
    writeFileSync(join(results, 'r-result.json'), JSON.stringify({
      uuid: 'r', name: 'JSON-STRING', fullName: 'JSON-STRING', status: 'passed', stage: 'finished', start: 1, stop: 2,
      attachments: [{ name: 'case-1.login response', source: 'a-attachment.txt', type: 'text/plain' }], steps: [], labels: [], links: [], parameters: [],
    }));
    const before = new Map(readdirSync(results).map((f) => [f, readFileSync(join(results, f))]));
    // Its own temporary directory, in RAM where the suite's is: the writer's work in RAM goes there
    // (ramDir), with no other process's beside it.
    const ownRam = mkdtempSync(join(tmpdir(), 'html-pieces-ram-'));
    const suiteTmp = process.env.TMPDIR;
    process.env.TMPDIR = ownRam;
    const run = await runConformance({ baseUrl: 'http://example.test', recorded: [], mode: 'traffic', checks: [], namespaces: DEFAULT_NAMESPACES, values: {}, extraHeaders: {}, timeoutMs: 1000, maxBodyBytes: 1 << 20, probes: false });
    const report = buildReport(run, { redactor: new Redactor({ showPersonalData: false, secrets: [] }), harness: { name: 'h', version: '0' }, targetDescription: 't', configuration: {} });
    let written: string[];
    try {
      written = await writeHtmlReport(dir, 'title', report);
    } finally {
      if (suiteTmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = suiteTmp;
    }
    expect(written).toEqual([join(dir, 'report.html')]);
    expect(readFileSync(join(dir, 'report.html'), 'utf8')).toContain('id="conformance-verdict"');
    expect(readdirSync(results).sort()).toEqual([...before.keys()].sort());
    for (const [f, bytes] of before) expect(readFileSync(join(results, f)).equals(bytes), f).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(['allure-results', 'report.html']); // its work directory removed
    expect(readdirSync(ownRam)).toEqual([]); // and the one in RAM
    rmSync(ownRam, { recursive: true });
  }, 120_000);
});
