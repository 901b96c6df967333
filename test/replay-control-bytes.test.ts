// A replay sends the recorded bytes of a URL and a header value, control and format characters
// included (a body's: replay-curl-fidelity.test.ts; CR, LF and NUL in a field, and a method that is
// no token, are not replayed: replay-unsendable-head.test.ts), and a method's characters a shell
// reads, while the command's own text holds none of them raw: every output shows it as it is, and a
// console prints nothing a terminal acts on.
// The commands are run by sh (dash here: no $'…') and by bash, with curl a stub printing the bytes
// of its arguments, and by real curl against a raw socket logging what arrives.
import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Exchange } from '../lib/http/exchange.js';
import { displayBlock } from '../lib/reporting/display.js';
import { curlCommand } from '../lib/reporting/exchange-text.js';
import { Redactor } from '../lib/reporting/redact.js';
import { replayBounds } from '../lib/reporting/replay-script.js';
import { runCli } from './helpers/cli.js';
import { startRawTarget, type RawTarget } from './helpers/raw-target.js';

const BOUNDS = replayBounds({ configuration: {} });
const work = mkdtempSync(join(tmpdir(), 'replay-control-bytes-'));
/** A directory whose `curl` writes each argument's bytes as hex, one line each, to $ARGV_LOG. */
const stub = join(work, 'bin');
let target: RawTarget;
beforeAll(async () => {
  mkdirSync(stub);
  // replay.sh reads the status from the head curl writes where -D says.
  writeFileSync(join(stub, 'curl'), '#!/bin/sh\nprev=\nfor a; do printf %s "$a" | od -An -v -tx1 | tr -d " \\n" >>"$ARGV_LOG"; echo >>"$ARGV_LOG"; if [ "$prev" = -D ]; then printf "HTTP/1.1 200 OK\\r\\n\\r\\n" >"$a"; fi; prev=$a; done\nprintf 200\n');
  chmodSync(join(stub, 'curl'), 0o755);
  target = await startRawTarget(() => 'HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n');
});
afterAll(async () => { await target.close(); rmSync(work, { recursive: true, force: true }); });

/** ESC starting a colour, BEL, a C1 control (U+0085), a soft hyphen, a quote and a backslash:
 *  each kept as recorded. A header's characters are bytes read as Latin-1 (a HAR's too, as browsers
 *  record them: replay-har-header-bytes.test.ts), so none is past U+00FF. Not CR, LF or NUL, which no
 *  field value holds: such a request is not replayed (replay-unsendable-head.test.ts). */
const VALUE = 'a\u001b[31mred\u0007 b\u0085d\u00ade\'g\\h';
/** A URL's: a format character (curl sends it as its UTF-8), an escape written %1b, a quote. Not a
 *  control character: curl refuses a URL holding one, or a space ("URL using bad/illegal format"),
 *  and replay.sh says it is not replayed (replay-har-header-bytes.test.ts). */
const URL_TAIL = '/supportstateuser?q=[2J\u202e%1b\'';
/** A method is a token (RFC 9110 9.1), of which these are characters a shell reads: a method holding
 *  a control character is not replayed (replay-unsendable-head.test.ts). */
const METHOD = "PO'$`|&ST";

const run = (shell: string, command: string, log: string) => new Promise<{ code: number; stderr: string }>((resolve) => {
  // HOME: one without a .bashrc (bash reads it when its standard input is a socket, as a child's is).
  execFile(shell, ['-c', command], { env: { HOME: work, PATH: `${stub}:${process.env.PATH ?? ''}`, ARGV_LOG: log }, timeout: 60_000 }, (e, _stdout, stderr) => resolve({ code: e ? (typeof e.code === 'number' ? e.code : -1) : 0, stderr }));
});
/** The arguments the stub was given, as strings (UTF-8; `latin1`: each byte a character, as a header's). */
const argv = (log: string, encoding: BufferEncoding = 'utf8'): string[] => readFileSync(log, 'utf8').split('\n').slice(0, -1).map((h) => Buffer.from(h, 'hex').toString(encoding));

describe('a replay sends a URL\'s and a header\'s control characters, and a method\'s shell characters, as recorded', () => {
  const ex: Exchange = {
    id: 'har.1', title: 'a recorded request', origin: { source: 'har', vouched: false }, startedAt: '2026-01-01T00:00:00.000Z', durationMs: 1,
    request: { method: METHOD, url: `http://127.0.0.1:9${URL_TAIL}`, headers: { 'x-trace': VALUE, accept: 'application/json' } },
  };
  const command = curlCommand(ex, new Redactor({ showPersonalData: false, secrets: [] }), BOUNDS);

  it('the command holds no character an output shows escaped, and a plain word is written as before', () => {
    expect(displayBlock(command)).toBe(command);
    expect(command).toContain(" -H 'accept: application/json' ");
  });

  for (const shell of ['sh', 'bash']) {
    it(`run by ${shell}, curl is given the method, header and URL as recorded`, async () => {
      const log = join(work, `${shell}.argv`);
      expect(await run(shell, command, log)).toEqual({ code: 0, stderr: '' });
      const args = argv(log);
      expect(args[args.indexOf('-X') + 1]).toBe(METHOD);
      expect(argv(log, 'latin1').filter((_a, i) => args[i - 1] === '-H')).toEqual([`x-trace: ${VALUE}`, 'accept: application/json', 'user-agent:']);
      expect(args.at(-1)).toBe(`http://127.0.0.1:9${URL_TAIL}`);
    });
  }

  it('run with real curl, the header value reaches the server byte for byte', async () => {
    const sent: Exchange = { ...ex, request: { method: 'GET', url: `${target.url}/supportstateuser`, headers: { 'x-trace': VALUE } } };
    const before = target.requests.length;
    const r = await new Promise<{ code: number; stderr: string }>((resolve) => {
      execFile('sh', ['-c', curlCommand(sent, new Redactor({ showPersonalData: false, secrets: [] }), BOUNDS)], { timeout: 60_000 }, (e, _o, stderr) => resolve({ code: e ? -1 : 0, stderr }));
    });
    expect(r).toEqual({ code: 0, stderr: '' });
    // The raw target reads a head as latin1: the value's bytes, one character each.
    expect(target.requests[before]!.headers['x-trace']).toBe(VALUE);
  });
});

describe('replay.sh and the console, from a recording', () => {
  it('replay.sh run by sh gives curl the recorded header and URL bytes; the console shows them escaped', async () => {
    const record = readFileSync('fixtures/reference/user-details.json', 'utf8');
    const har = join(work, 'controls.har');
    writeFileSync(har, JSON.stringify({ log: { version: '1.2', creator: { name: 't', version: '1' }, entries: [{
      startedDateTime: '2026-01-01T00:00:00.000Z', time: 1,
      // GET: REQ-METHOD fails, and replay.sh replays it.
      request: { method: 'GET', url: `http://127.0.0.1:9${URL_TAIL}`, headers: [{ name: 'X-Trace', value: VALUE }] },
      response: { status: 200, headers: [{ name: 'Content-Type', value: 'application/json' }], content: { text: record } },
    }] } }));
    const dir = join(work, 'reports');
    const r = await runCli(['--reports', 'summary', '--har', har, '--report-dir', dir]);
    expect(r.code).toBe(1);
    const log = join(work, 'replay.argv');
    const out = await new Promise<string>((resolve) => {
      execFile('sh', [join(dir, 'replay.sh')], { env: { PATH: `${stub}:${process.env.PATH ?? ''}`, ARGV_LOG: log }, timeout: 60_000 }, (_e, stdout, stderr) => resolve(stdout + stderr));
    });
    expect(out).toMatch(/^REQ-METHOD \(MUST\) har\.1: 200 /m);
    const args = argv(log);
    // The header's name as the recording spells it.
    expect(argv(log, 'latin1').filter((_a, i) => args[i - 1] === '-H')).toEqual([`X-Trace: ${VALUE}`, 'accept:', 'user-agent:']);
    expect(args.at(-1)).toBe(`http://127.0.0.1:9${URL_TAIL}`);
    // Nothing raw a terminal acts on; the command printed, its control characters in printf's escapes.
    expect(r.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b\u202e]/u);
    expect(r.stdout).toMatch(/replay: curl .*-H 'X-Trace: a'"\$\(printf '\\033'\)"'\[31mred'/);
  });
});
