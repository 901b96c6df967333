// A recording is evidence, judged as it is: a defect of the HAR file itself (a member the harness
// reads named twice, a field of another JSON type than HAR 1.2 gives it, one HAR 1.2 requires absent
// or null, bytes that are not UTF-8) refuses the file in one line naming its line and byte offset, by the quick reader and the streaming
// one alike, exit 2, never judged as the service's answer.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { childEnv, LEAN, ROOT, runCli } from './helpers/cli.js';
import { readHar as read } from './helpers/har-read.js';
import { owned } from './helpers/owned-children.js';

const work = mkdtempSync(join(tmpdir(), 'har-defects-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const record = readFileSync('fixtures/reference/user-details.json', 'utf8');

/** One entry, on three lines (so that a line number says something): a login answered 200 with a record. */
const entry = (n: number) => `{"startedDateTime":"2026-01-01T00:00:00Z","time":${n},\n`
  + ' "request":{"method":"POST","url":"http://svc.example/supportstateuser","headers":[{"name":"Content-Type","value":"application/json"}],"postData":{"mimeType":"application/json","text":"{\\"userName\\":\\"a\\"}"}},\n'
  + ` "response":{"status":200,"headers":[{"name":"Content-Type","value":"application/json"}],"content":{"mimeType":"application/json","text":${JSON.stringify(`${record}\u00e9\u65e5`)}}}}`;
/** A padding entry whose unread comment puts what follows past the quick reader's first chunk (256 KiB). */
const padding = `{"comment":"${'p'.repeat(300 * 1024)}","request":{"method":"GET","url":"http://svc.example/","headers":[]},"response":{"status":0,"headers":[],"content":{}}}`;

/** A HAR of a plain entry and the second one edited, then the whole file (`file`); `streamed`: a dotted
 *  name at the top and the padding before the entries, so the quick reader hands the file over before it reaches them. */
function har(name: string, edit: (e: string) => string, streamed = false, file: (text: string) => string = (t) => t): { path: string; bytes: Buffer } {
  const path = join(work, `${name}${streamed ? '-streamed' : ''}.har`);
  const entries = [...(streamed ? [padding] : []), entry(1), edit(entry(2))];
  const text = file(`{${streamed ? '"x.y":1,' : ''}"log":{"version":"1.2","creator":{"name":"t","version":"1"},"entries":[\n${entries.join(',\n')}\n]}}`);
  // U+0001 (raw, no JSON text holds it) stands for a byte that is not UTF-8: 0xFF.
  const bytes = Buffer.from(text);
  for (let i = bytes.indexOf(1); i >= 0; i = bytes.indexOf(1, i + 1)) bytes[i] = 0xff;
  writeFileSync(path, bytes);
  return { path, bytes };
}

/** "line L, byte offset B" of the byte `skip` bytes into the first `mark` of `bytes` (`last`: the last). */
function at(bytes: Buffer, mark: string | Buffer, skip = 0, last = false): string {
  const offset = (last ? bytes.lastIndexOf(mark) : bytes.indexOf(mark)) + skip;
  expect(offset).toBeGreaterThan(skip);
  return `line ${bytes.subarray(0, offset).toString('latin1').split('\n').length}, byte offset ${offset}`;
}


const judge = (path: string) => runCli([...LEAN, '--har', path, '--report-dir', mkdtempSync(join(work, 'r-')), '--quiet']);
const DUP = 'RFC 8259 4: which one a reader keeps is unpredictable, so the recording does not say what was sent';
const TYPE = 'a defect of the recording, not of the service';
const WHOLE = `${TYPE}: the exchange is not whole`;
const notJson = (kind: string) => `not valid JSON (${kind}; ${TYPE})`;
/** "line L, byte offset B" of the file's end. */
const atEnd = (b: Buffer) => `line ${b.toString('latin1').split('\n').length}, byte offset ${b.length}`;
/** Where entry 2's request closes, and its response (the file's last "}}}": content, response, entry). */
const requestEnd = (b: Buffer) => at(b, '}},\n "response"', 1, true);
const responseEnd = (b: Buffer) => at(b, '}}}\n]', 1, true);

/** Each defect: the edit of entry 2, where the refusal points, and what it says. */
const DEFECTS: readonly { readonly name: string; readonly edit: (e: string) => string; readonly file?: (t: string) => string; readonly where: (b: Buffer) => string; readonly says: string }[] = [
  { name: 'status-twice', edit: (e) => e.replace('"status":200', '"status":200,"status":500'), where: (b) => at(b, '"status":500'), says: `entry 2 names response.status twice (${DUP})` },
  { name: 'text-twice', edit: (e) => e.replace('"content":{', '"content":{"text":"{}",'), where: (b) => at(b, '"text":"{}","mimeType":"application/json",', 42), says: `entry 2 names response.content.text twice (${DUP})` },
  { name: 'url-twice', edit: (e) => e.replace('"method":"POST",', '"method":"POST","url":"http://svc.example/other",'), where: (b) => at(b, '"url":"http://svc.example/other",', 33), says: `entry 2 names request.url twice (${DUP})` },
  // A name written with an escape is the same name (both readers decode it).
  { name: 'status-escaped', edit: (e) => e.replace('"status":200', '"status":200,"st\\u0061tus":500'), where: (b) => at(b, '"st\\u0061tus"'), says: `entry 2 names response.status twice (${DUP})` },
  { name: 'status-string', edit: (e) => e.replace('"status":200', '"status":"200"'), where: (b) => at(b, '"status":"200"', 9), says: `entry 2 has response.status as a string, where HAR 1.2 has a number (${TYPE})` },
  { name: 'headers-object', edit: (e) => e.replace('"status":200,"headers":[{"name":"Content-Type","value":"application/json"}]', '"status":200,"headers":{}'), where: (b) => at(b, '"headers":{}', 10), says: `entry 2 has response.headers as an object, where HAR 1.2 has an array (${TYPE})` },
  { name: 'header-value-number', edit: (e) => e.replace('"value":"application/json"}],"postData"', '"value":7}],"postData"'), where: (b) => at(b, '"value":7}', 8), says: `entry 2 has request.headers[0].value as a number, where HAR 1.2 has a string (${TYPE})` },
  { name: 'content-text-number', edit: (e) => e.replace(/"text":"\{\\n/, '"text":5,"x":"{\\n'), where: (b) => at(b, '"text":5,', 7), says: `entry 2 has response.content.text as a number, where HAR 1.2 has a string (${TYPE})` },
  { name: 'posted-text-object', edit: (e) => e.replace('"text":"{\\"userName\\":\\"a\\"}"', '"text":{"userName":"a"}'), where: (b) => at(b, '"text":{"userName"', 7), says: `entry 2 has request.postData.text as an object, where HAR 1.2 has a string (${TYPE})` },
  { name: 'url-number', edit: (e) => e.replace('"url":"http://svc.example/supportstateuser"', '"url":5'), where: (b) => at(b, '"url":5', 6), says: `entry 2 has request.url as a number, where HAR 1.2 has a string (${TYPE})` },
  // A member HAR 1.2 requires and the exchange needs, absent or null: the entry is no whole exchange.
  // Old readers left out an entry without method or URL with a warning (CONFORMANT, exit 0), judged
  // absent headers as none (NOT CONFORMANT, blaming the service) and a null header name as no header.
  { name: 'method-url-absent', edit: (e) => e.replace('"method":"POST","url":"http://svc.example/supportstateuser",', ''), where: requestEnd, says: `entry 2 has no request.method, which HAR 1.2 requires (${WHOLE})` },
  { name: 'request-headers-absent', edit: (e) => e.replace('"headers":[{"name":"Content-Type","value":"application/json"}],"postData"', '"postData"'), where: requestEnd, says: `entry 2 has no request.headers, which HAR 1.2 requires (${WHOLE})` },
  { name: 'response-headers-absent', edit: (e) => e.replace('"headers":[{"name":"Content-Type","value":"application/json"}],"content"', '"content"'), where: responseEnd, says: `entry 2 has no response.headers, which HAR 1.2 requires (${WHOLE})` },
  { name: 'status-absent', edit: (e) => e.replace('"status":200,', ''), where: responseEnd, says: `entry 2 has no response.status, which HAR 1.2 requires (${WHOLE})` },
  { name: 'content-absent', edit: (e) => e.replace('"content":{', '"_content":{'), where: responseEnd, says: `entry 2 has no response.content, which HAR 1.2 requires (${WHOLE})` },
  { name: 'response-absent', edit: (e) => e.replace('"response":{', '"_response":{'), where: (b) => at(b, '}}}\n]', 2, true), says: `entry 2 has no response, which HAR 1.2 requires (${WHOLE})` },
  { name: 'posted-nothing', edit: (e) => e.replace(',"text":"{\\"userName\\":\\"a\\"}"', ''), where: (b) => at(b, '"postData":{"mimeType":"application/json"}}', 41), says: `entry 2 has neither request.postData.text nor request.postData.params, one of which HAR 1.2 requires (${WHOLE})` },
  { name: 'status-null', edit: (e) => e.replace('"status":200', '"status":null'), where: (b) => at(b, '"status":null', 9), says: `entry 2 has response.status as null, where HAR 1.2 requires a number (${TYPE})` },
  { name: 'header-name-null', edit: (e) => e.replace('"headers":[{"name":"Content-Type","value":"application/json"}],"content"', '"headers":[{"name":null,"value":"x"},{"name":"Content-Type","value":"application/json"}],"content"'), where: (b) => at(b, '"name":null', 7), says: `entry 2 has response.headers[0].name as null, where HAR 1.2 requires a string (${TYPE})` },
  { name: 'header-null', edit: (e) => e.replace('"value":"application/json"}],"postData"', '"value":"application/json"},null],"postData"'), where: (b) => at(b, '},null]', 2), says: `entry 2 has request.headers[1] as null, where HAR 1.2 requires an object (${TYPE})` },
  // An entry that is no object (old readers named no line nor offset for it).
  { name: 'entry-number', edit: () => '7', where: (b) => at(b, ',\n7\n]', 2), says: `entry 2 is a number, where HAR 1.2 has an object (${TYPE})` },
  { name: 'entry-string', edit: () => '"x"', where: (b) => at(b, ',\n"x"\n]', 2), says: `entry 2 is a string, where HAR 1.2 has an object (${TYPE})` },
  { name: 'entry-null', edit: () => 'null', where: (b) => at(b, ',\nnull\n]', 2), says: `entry 2 is null, where HAR 1.2 requires an object (${TYPE})` },
  // Text marked base64 that is not: named where the text starts, the encoding given before it or after (as browsers write it).
  // Old readers named the entry alone.
  { name: 'base64-not', edit: (e) => e.replace('"content":{', '"content":{"encoding":"base64",'), where: (b) => at(b, '"text":"{\\n', 7, true), says: `entry 2 has response.content.text not in base64, where response.content.encoding says base64 (${TYPE})` },
  { name: 'base64-not-after', edit: (e) => e.replace(/\}\}\}$/, ',"encoding":"base64"}}}'), where: (b) => at(b, '"text":"{\\n', 7, true), says: `entry 2 has response.content.text not in base64, where response.content.encoding says base64 (${TYPE})` },
  // The file's top: log and log.entries absent, or of another type, and a top value that is no object
  // (old readers named neither line nor offset; an absent one is named where its object closes).
  { name: 'entries-object', edit: (e) => e, file: (t) => t.replace('"entries":[', '"entries":{"x":[').replace(/\}\}$/, '}}}'), where: (b) => at(b, '"entries":{', 10), says: `the file has log.entries as an object, where HAR 1.2 has an array (${TYPE})` },
  { name: 'entries-string', edit: (e) => e, file: (t) => t.replace('"entries":[', '"entries":"x","_entries":['), where: (b) => at(b, '"entries":"x"', 10), says: `the file has log.entries as a string, where HAR 1.2 has an array (${TYPE})` },
  { name: 'entries-null', edit: (e) => e, file: (t) => t.replace('"entries":[', '"entries":null,"_entries":['), where: (b) => at(b, '"entries":null', 10), says: `the file has log.entries as null, where HAR 1.2 requires an array (${TYPE})` },
  { name: 'entries-absent', edit: (e) => e, file: (t) => t.replace('"entries":[', '"_entries":['), where: (b) => at(b, ']}}', 1, true), says: `the file has no log.entries, which HAR 1.2 requires (${TYPE})` },
  { name: 'log-absent', edit: (e) => e, file: (t) => t.replace('"log":{', '"_log":{'), where: (b) => at(b, ']}}', 2, true), says: `the file has no log, which HAR 1.2 requires (${TYPE})` },
  { name: 'log-array', edit: (e) => e, file: (t) => t.replace('"log":{', '"log":[{').replace(/\}$/, ']}'), where: (b) => at(b, '"log":[', 6), says: `the file has log as an array, where HAR 1.2 has an object (${TYPE})` },
  { name: 'top-array', edit: (e) => e, file: (t) => `\n\n[${t}]`, where: (b) => at(b, '\n[', 1), says: `the file is an array, where HAR 1.2 has an object (${TYPE})` },
  { name: 'top-string', edit: (e) => e, file: () => '\n\n"log"', where: (b) => at(b, '\n"', 1), says: `the file is a string, where HAR 1.2 has an object (${TYPE})` },
  // A top-level literal is refused as one only once its bytes are one: `not json` was "the file is null".
  { name: 'top-null', edit: (e) => e, file: () => '\n\nnull\n', where: (b) => at(b, '\nn', 1), says: `the file is null, where HAR 1.2 requires an object (${TYPE})` },
  { name: 'top-number', edit: (e) => e, file: () => ' 12', where: (b) => at(b, '12'), says: `the file is a number, where HAR 1.2 has an object (${TYPE})` },
  { name: 'top-not-json', edit: (e) => e, file: () => 'not json', where: (b) => at(b, 'o'), says: notJson('a bare word, where JSON has only true, false and null') },
  { name: 'top-cut-literal', edit: (e) => e, file: () => 'tru', where: atEnd, says: notJson('the file ends inside a bare word') },
  // Past the depth bound, in an entry or outside the entries (old readers named neither line nor offset).
  { name: 'nests-deep', edit: (e) => e.replace('"response":{', `"_x":${'['.repeat(64)}${']'.repeat(64)},"response":{`), where: (b) => at(b, '"_x":[', 5 + 63), says: `entry 2 nests deeper than 64 levels, which no recording needs (refused so that reading it stays bounded)` },
  { name: 'pages-deep', edit: (e) => e, file: (t) => t.replace('"entries":[', `"pages":${'['.repeat(66)}${']'.repeat(66)},"entries":[`), where: (b) => at(b, '"pages":[', 8 + 65), says: `the file nests deeper than 64 levels, which no recording needs (refused so that reading it stays bounded)` },
  { name: 'not-utf8', edit: (e) => e.replace('\u00e9', '\u00e9\u0001'), where: (b) => at(b, Buffer.from([0xff])), says: 'not UTF-8 (RFC 8259 8.1: JSON exchanged between systems must be)' },
  // Not JSON (RFC 8259): named at the first byte that makes it so (old readers named a range of a chunk, or a member absent).
  { name: 'stray-character', edit: (e) => e.replace('"time":2,', '"time":2,~'), where: (b) => at(b, '"time":2,~', 9), says: notJson('an unexpected character') },
  { name: 'missing-comma', edit: (e) => e.replace('"method":"POST",', '"method":"POST" '), where: (b) => at(b, '"POST" "url"', 7), says: notJson('a missing comma') },
  { name: 'unterminated-string', edit: (e) => e, file: (t) => `${t.slice(0, -1)},"comment":"cut`, where: atEnd, says: notJson('the file ends inside a string') },
  { name: 'control-character', edit: (e) => e.replace('"url":"http://svc.example/', '"url":"http://svc.example/\t'), where: (b) => at(b, 'example/\t', 8), says: notJson('a control character inside a string') },
  { name: 'invalid-escape', edit: (e) => e.replace('"url":"http://svc.example/', '"url":"http://svc.example/\\q'), where: (b) => at(b, 'example/\\q', 9), says: notJson('an invalid escape in a string') },
  { name: 'trailing-comma', edit: (e) => e.replace('"value":"application/json"}],"postData"', '"value":"application/json"},],"postData"'), where: (b) => at(b, '},],"postData"', 2), says: notJson('a trailing comma') },
  { name: 'trailing-comma-object', edit: (e) => e.replace('"status":200,', '"status":200,}'), where: (b) => at(b, '"status":200,}', 13), says: notJson('a trailing comma') },
  { name: 'bare-word', edit: (e) => e.replace('"time":2', '"time":nul'), where: (b) => at(b, '"time":nul,', 10), says: notJson('a bare word, where JSON has only true, false and null') },
  { name: 'leading-zero', edit: (e) => e.replace('"time":2', '"time":01'), where: (b) => at(b, '"time":01', 8), says: notJson('a malformed number') },
  { name: 'no-fraction', edit: (e) => e.replace('"time":2', '"time":1.'), where: (b) => at(b, '"time":1.,', 9), says: notJson('a malformed number') },
  { name: 'other-bracket', edit: (e) => e.replace('"value":"application/json"}],"postData"', '"value":"application/json"}},"postData"'), where: (b) => at(b, 'application/json"}},"postData"', 18), says: notJson('a closing bracket of another kind') },
  { name: 'status-fraction', edit: (e) => e.replace('"status":200', '"status":200.5'), where: (b) => at(b, '"status":200.5', 9), says: `entry 2 has response.status 200.5, which no response has (a status is three digits, RFC 9112 4; ${TYPE})` },
  { name: 'status-five-digits', edit: (e) => e.replace('"status":200', '"status":99999'), where: (b) => at(b, '"status":99999', 9), says: `entry 2 has response.status 99999, which no response has (a status is three digits, RFC 9112 4; ${TYPE})` },
  { name: 'status-past-double', edit: (e) => e.replace('"status":200', '"status":1e400'), where: (b) => at(b, '"status":1e400', 9), says: `entry 2 has response.status Infinity, which no response has (a status is three digits, RFC 9112 4; ${TYPE})` },
  { name: 'text-after', edit: (e) => e, file: (t) => `${t}\nnull`, where: (b) => at(b, '\nnull', 1, true), says: notJson('text after the top-level value') },
];

describe.concurrent('a defect of the HAR file is refused, not judged', () => {
  for (const d of DEFECTS) {
    it(`${d.name}: both readers refuse the file in one line naming the defect's line and byte offset`, async () => {
      for (const streamed of [false, true]) {
        const { path, bytes } = har(d.name, d.edit, streamed, d.file);
        // Old readers took the last of two members, or judged the wrong type as no answer recorded.
        // Streamed, the padding entry comes first: the edited one is the third.
        expect((await read(path)).refused, path).toBe(`${path} is not a HAR file: ${d.where(bytes)}: ${streamed ? d.says.replace('entry 2', 'entry 3') : d.says}`);
      }
    });
  }

  it('a status named twice (200, then 500) stops the run in one line, exit 2, where it was judged NOT CONFORMANT', async () => {
    const { path, bytes } = har('status-twice-cli', DEFECTS[0]!.edit);
    const r = await judge(path);
    expect([r.code, r.stderr]).toEqual([2, `conformance: ${path} is not a HAR file: ${DEFECTS[0]!.where(bytes)}: entry 2 names response.status twice (${DUP})\n`]);
  });

  it('response headers absent stop the run in one line, exit 2, where they were judged as none (NOT CONFORMANT: a Content-Type the service may have sent)', async () => {
    const d = DEFECTS.find((x) => x.name === 'response-headers-absent')!;
    const { path, bytes } = har('response-headers-absent-cli', d.edit);
    const r = await judge(path);
    expect([r.code, r.stderr]).toEqual([2, `conformance: ${path} is not a HAR file: ${d.where(bytes)}: ${d.says}\n`]);
  });

  it('a top-level member named "log.entries" is no part of log.entries: both readers judge log.entries alone', async () => {
    const path = join(work, 'dotted-entries.har');
    // Before log (the streaming reader meets it first) and after it; the quick reader hands a file with a dotted name over.
    writeFileSync(path, `{"log.entries":[${entry(7)}],"log":{"version":"1.2","creator":{"name":"t","version":"1"},"entries":[\n${entry(1)},\n${entry(2)}\n]}}`);
    expect(await read(path)).toEqual({ ids: ['har.1', 'har.2'] });
    const after = join(work, 'dotted-entries-after.har');
    writeFileSync(after, `{"log":{"version":"1.2","creator":{"name":"t","version":"1"},"entries":[\n${entry(1)}\n]},"log.entries":5}`);
    expect(await read(after)).toEqual({ ids: ['har.1'] });
  });

  it('read from standard input (the streaming reader alone), a field of another type stops the run in one line, exit 2', async () => {
    const { bytes } = har('status-string-stdin', DEFECTS[4]!.edit);
    const r = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = owned(spawn(process.execPath, ['bin/run.mjs', 'cli/main', ...LEAN, '--har', '-', '--report-dir', mkdtempSync(join(work, 'r-')), '--quiet'], { cwd: ROOT, env: childEnv(), detached: true }), true);
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
      child.on('close', (code) => resolve({ code, stderr }));
      child.stdin.end(bytes);
    });
    expect([r.code, r.stderr]).toEqual([2, `conformance: standard input is not a HAR file: ${DEFECTS[4]!.where(bytes)}: entry 2 has response.status as a string, where HAR 1.2 has a number (${TYPE})\n`]);
  });

  it('a file ending inside a character is refused by both readers, naming where that character starts', async () => {
    for (const top of ['', '"x.y":1,']) {
      const path = join(work, `cut-char${top ? '-streamed' : ''}.har`);
      const bytes = Buffer.concat([Buffer.from(`{${top}"log":{"entries":[${entry(1)}]}}`), Buffer.from([0xe6, 0x97])]);
      writeFileSync(path, bytes);
      expect((await read(path)).refused).toBe(`${path} is not a HAR file: line 3, byte offset ${bytes.length - 2}: the file ends inside a character, not UTF-8 (RFC 8259 8.1: JSON exchanged between systems must be)`);
    }
  });

  it('null stands for an absent optional member, and members the harness does not read may repeat or lack: judged as before', async () => {
    const edits: ((e: string) => string)[] = [
      (e) => e.replace('"startedDateTime":"2026-01-01T00:00:00Z"', '"startedDateTime":null').replace('"mimeType":"application/json","text":"{\\n', '"encoding":null,"mimeType":"application/json","text":"{\\n'),
      (e) => e.replace('"mimeType":"application/json",', '"mimeType":"application/json","mimeType":"text/plain","comment":"a","comment":"b",'),
      (e) => e.replace('"value":"application/json"}],"postData"', '"value":"application/json"},{"name":"X-A","value":"1"},{"name":"X-A","value":"2"}],"postData"'),
      // What HAR 1.2 requires and the harness does not read (httpVersion, cookies, timings, mimeType, …) may be absent.
      (e) => e.replace('"mimeType":"application/json",', ''),
    ];
    for (const [k, edit] of edits.entries()) {
      for (const streamed of [false, true]) {
        const { path } = har(`allowed-${k}`, edit, streamed);
        expect(await read(path), path).toEqual({ ids: streamed ? ['har.1', 'har.2', 'har.3'] : ['har.1', 'har.2'] });
      }
    }
  });
});
