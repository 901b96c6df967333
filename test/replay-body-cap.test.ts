// replay.sh bounded each curl in time only: a target streaming an endless or huge answer filled a
// temporary file until --max-time (gigabytes on a fast link). It now reads an answer body up to the
// run's body cap, as the run did (curl's --max-filesize where the length is announced, the body cut
// one byte past the cap where it is chunked), and says the answer went past the cap.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { curlStart } from '../lib/reporting/exchange-text.js';
import type { Report, ReportedExchange } from '../lib/reporting/report.js';
import { replayBounds, replayScript } from '../lib/reporting/replay-script.js';

const MIB = 1024 * 1024;
/** The most a test server sends of one answer: what an unbounded replay would read whole. */
const SERVED_AT_MOST = 64 * MIB;
const CHUNK = Buffer.alloc(64 * 1024, 'a');

let server: Server;
let base: string;
/** Bytes of body written to the socket per path, in the last answer to it. */
const sent = new Map<string, number>();

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = req.url ?? '/';
    const size = path === '/small' ? 1000 : SERVED_AT_MOST;
    // /length announces its length; the others are chunked.
    res.writeHead(200, path === '/length' ? { 'content-length': String(size) } : {});
    let written = 0;
    sent.set(path, 0);
    const pump = () => {
      while (written < size && !res.destroyed) {
        const piece = CHUNK.subarray(0, Math.min(CHUNK.length, size - written));
        written += piece.length;
        sent.set(path, written);
        if (!res.write(piece)) return;
      }
      if (written >= size) res.end();
    };
    res.on('drain', pump);
    res.on('close', () => res.destroy());
    pump();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }));

const sh = (script: string) => new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
  execFile('sh', [script], { env: { PATH: process.env.PATH ?? '' }, timeout: 60_000, maxBuffer: 4 * MIB }, (e, stdout, stderr) =>
    resolve({ code: e ? (typeof e.code === 'number' ? e.code : -1) : 0, stdout, stderr }));
});

/** The replay.sh of a run with a body cap of 1 MiB whose one failed check's evidence is a GET of
 *  `path` the run got `got` for. */
function scriptOf(path: string, got: Partial<ReportedExchange>): string {
  const configuration = { timeoutMs: 10_000, maxBodyBytes: MIB };
  const exchange = { id: 'e1', method: 'GET', url: `${base}${path}`, status: 200, curl: `${curlStart(replayBounds({ configuration }), '-i')} -X GET '${base}${path}'`, ...got };
  const report = {
    mode: 'conformance', target: { baseUrl: base }, configuration, exchanges: [exchange],
    checks: [{ id: 'CHECK', level: 'MUST', status: 'fail', evidence: [{ exchange: 'e1' }], replay: exchange.curl }],
  } as unknown as Report;
  const file = join(mkdtempSync(join(tmpdir(), 'replay-body-cap-')), 'replay.sh');
  writeFileSync(file, replayScript(report));
  return file;
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const FIRST_MIB = sha256(Buffer.alloc(MIB, 'a'));

it('replay.sh reads a chunked answer up to the run\'s body cap, not on, and says it went past the cap, hashing its first cap bytes', async () => {
  const r = await sh(scriptOf('/chunked', { answerPastCap: true }));
  expect([r.code, r.stderr, r.stdout]).toEqual([0, '', `CHECK (MUST) e1: 200 sha256 ${FIRST_MIB} (its body past the body cap of ${MIB} bytes: the SHA-256 of its first ${MIB}; status as in the run, whose answer body was past the body cap too: no body to compare with)\n`]);
  // What curl read past the cap is what the pipe and the sockets held when head -c had its bytes.
  expect(sent.get('/chunked')).toBeLessThan(SERVED_AT_MOST / 2);
}, 60_000);

it('replay.sh does not read an answer whose Content-Length is past the run\'s body cap, and says so beside the run\'s answer', async () => {
  const r = await sh(scriptOf('/length', { responseSha256: '0'.repeat(64) }));
  expect([r.code, r.stderr, r.stdout]).toEqual([0, '', `CHECK (MUST) e1: 200 sha256 - (its body past the body cap of ${MIB} bytes, as its Content-Length says: not read; the run got 200 ${'0'.repeat(64)})\n`]);
  expect(sent.get('/length')).toBeLessThan(SERVED_AT_MOST / 2);
}, 60_000);

it('replay.sh hashes an answer within the cap whole, as in the run', async () => {
  const small = sha256(Buffer.alloc(1000, 'a'));
  const r = await sh(scriptOf('/small', { responseSha256: small }));
  expect([r.code, r.stderr, r.stdout]).toEqual([0, '', `CHECK (MUST) e1: 200 sha256 ${small} (as in the run)\n`]);
}, 60_000);
