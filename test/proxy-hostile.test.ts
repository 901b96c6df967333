// The validating proxy (--proxy) against hostile peers, over the real CLI, with raw-socket (node:net)
// targets that write any bytes: an answer Node will not relay gets the client a 502 naming why, is
// judged as the target's fault, and the proxy keeps serving; a request is forwarded framed exactly
// as it came or refused with 400, so the target parses exactly the requests the proxy counted.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEAN, servingProgram, type Serving } from './helpers/cli.js';
import { rawExchange, startRawTarget, type RawTarget } from './helpers/raw-target.js';

interface Summary {
  verdict: string;
  checks: { id: string; status: string; message: string }[];
  counts: { exchanges: { exchanges: number; bySource: Record<string, number> } };
  warnings: string[];
}
const summaryOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as Summary;
const work = mkdtempSync(join(tmpdir(), 'proxy-hostile-'));

const JSON_OK = 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}';
/** Answers, by the request's X-Answer header, that Node's parser reads but will not write again, or
 *  that the proxy cannot forward as they came (a transfer coding besides chunked). */
const HOSTILE: Record<string, { answer: string; cause: RegExp }> = {
  'status-099': { answer: 'HTTP/1.1 099 Odd\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}', cause: /its status 99 is not a three-digit code of 100-999/ },
  'reason-del': { answer: 'HTTP/1.1 200 O\x7fK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}', cause: /its reason phrase holds the control character 0x7f/ },
  'te-gzip': { answer: 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: gzip, chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n', cause: /its Transfer-Encoding "gzip, chunked" is not chunked alone, and the proxy undoes no other transfer coding/ },
  'unasked-101': { answer: 'HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: upgrade\r\n\r\n', cause: /its status 101 switches protocols the request never asked for/ },
};

const post = (url: string, answer?: string) =>
  fetch(`${url}/supportstateuser`, { method: 'POST', headers: { 'content-type': 'application/json', ...(answer ? { 'x-answer': answer } : {}) }, body: '{"userName":"jdoe.support"}' });

async function stopped(s: Serving): Promise<number> {
  s.child.kill('SIGTERM');
  return s.exit;
}

describe('--proxy in front of a target whose answers Node will not relay', () => {
  let target: RawTarget;
  beforeAll(async () => { target = await startRawTarget((r) => HOSTILE[r.headers['x-answer'] ?? '']?.answer ?? JSON_OK); });
  afterAll(async () => { await target.close(); });

  it('answers each with a 502 naming the cause in one line, keeps serving, and judges each as the target\'s fault', async () => {
    const dir = mkdtempSync(join(work, 'answers-'));
    const s = servingProgram('cli/main', [...LEAN, '--proxy', '0', '--base-url', target.url, '--report-dir', dir]);
    try {
      const url = await s.url;
      for (const [name, { cause }] of Object.entries(HOSTILE)) {
        const r = await post(url, name);
        const body = await r.text();
        expect([name, r.status, r.statusText], s.output()).toEqual([name, 502, 'Bad Gateway']);
        expect(body).toMatch(new RegExp(`^conformance proxy: cannot relay the answer of 127\\.0\\.0\\.1:\\d+: ${cause.source}[^\\n]*\\n$`));
        // Still serving: a plain answer after each hostile one comes through whole.
        const after = await post(url);
        expect([after.status, await after.text()]).toEqual([200, '{}']);
      }
      expect(await stopped(s)).toBe(1); // a MUST check failed: the target's, not the proxy's
      expect(s.output()).not.toMatch(/internal error/);
      const summary = summaryOf(dir);
      expect(summary.counts.exchanges.bySource).toEqual({ proxy: 2 * Object.keys(HOSTILE).length });
      const failed = summary.checks.filter((c) => c.status === 'failed');
      expect(failed.length).toBeGreaterThan(0);
      expect(failed.map((c) => c.message).join('\n')).toMatch(/no response: cannot relay the answer of 127\.0\.0\.1:\d+: /);
    } finally {
      s.child.kill('SIGKILL');
    }
  });
});

/** Answers that end at their head (a 204, any answer to HEAD: RFC 9112 6.3) with bytes after it in
 *  the same write that are no answer: Node's parser fails on them only after it has given the head. */
const BODILESS: Record<string, { method: 'POST' | 'HEAD'; answer: string; of: string }> = {
  '204-length': { method: 'POST', answer: 'HTTP/1.1 204 No Content\r\ncontent-length: 5\r\n\r\nhello', of: '204' },
  '204-chunked': { method: 'POST', answer: 'HTTP/1.1 204 No Content\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n', of: '204' },
  'head-body': { method: 'HEAD', answer: 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 5\r\n\r\nhello', of: 'answer to HEAD' },
};

describe('--proxy in front of a target that sends bytes after an answer that has no body', () => {
  let target: RawTarget;
  beforeAll(async () => { target = await startRawTarget((r) => BODILESS[r.headers['x-answer'] ?? '']?.answer ?? JSON_OK); });
  afterAll(async () => { await target.close(); });

  it('answers each with a 502 naming the cause, not a cut connection, keeps serving, and judges each as the target\'s fault', async () => {
    const dir = mkdtempSync(join(work, 'bodiless-'));
    const s = servingProgram('cli/main', [...LEAN, '--proxy', '0', '--base-url', target.url, '--report-dir', dir]);
    try {
      const url = await s.url;
      for (const [name, { method, of }] of Object.entries(BODILESS)) {
        const r = await fetch(`${url}/supportstateuser`, { method, headers: { 'x-answer': name } });
        const body = await r.text();
        expect([name, r.status, r.statusText], s.output()).toEqual([name, 502, 'Bad Gateway']);
        // One line naming the cause; the answer to a HEAD has none (no body), its exchange judged names it.
        const cause = `bytes came after the head of its ${of}, which has no body \\(RFC 9112 6\\.3\\)`;
        expect(body).toMatch(method === 'HEAD' ? /^$/ : new RegExp(`^conformance proxy: the answer of 127\\.0\\.0\\.1:\\d+ is not HTTP/1\\.1 that can be read \\(HPE_\\w+\\): ${cause}\\n$`));
        const after = await post(url);
        expect([after.status, await after.text()]).toEqual([200, '{}']);
      }
      expect(await stopped(s)).toBe(1);
      expect(s.output()).not.toMatch(/internal error/);
      const summary = summaryOf(dir);
      expect(summary.counts.exchanges.bySource).toEqual({ proxy: 2 * Object.keys(BODILESS).length });
      const failed = summary.checks.filter((c) => c.status === 'failed').map((c) => c.message).join('\n');
      expect(failed).toMatch(/no response: the answer of 127\.0\.0\.1:\d+ is not HTTP\/1\.1 that can be read \(HPE_\w+\): bytes came after the head of its (204|answer to HEAD), which has no body/);
    } finally {
      s.child.kill('SIGKILL');
    }
  });
});

describe('--proxy forwards every request framed exactly as it came, or refuses it with 400', () => {
  let target: RawTarget;
  beforeAll(async () => { target = await startRawTarget(() => JSON_OK); });
  afterAll(async () => { await target.close(); });

  const SMUGGLED = 'GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n';
  const chunked = (s: string) => `${Buffer.byteLength(s).toString(16)}\r\n${s}\r\n0\r\n\r\n`;
  const LAST = 'GET /supportstateuser?last=1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n';

  it('a body sent chunked or under "Connection: Content-Length" reaches the target as the body it was: the target parses exactly the requests the proxy counted', async () => {
    const dir = mkdtempSync(join(work, 'framing-'));
    const s = servingProgram('cli/main', [...LEAN, '--proxy', '0', '--base-url', target.url, '--report-dir', dir]);
    try {
      const url = await s.url;
      const before = target.requests.length;
      const sent = [
        `GET /supportstateuser HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n${chunked(SMUGGLED)}${LAST}`,
        `GET /supportstateuser HTTP/1.1\r\nHost: x\r\nConnection: Content-Length\r\nContent-Length: ${SMUGGLED.length}\r\n\r\n${SMUGGLED}${LAST}`,
        `POST /supportstateuser HTTP/1.1\r\nHost: x\r\nConnection: Content-Length, Transfer-Encoding\r\nContent-Length: ${SMUGGLED.length}\r\n\r\n${SMUGGLED}${LAST}`,
      ];
      for (const bytes of sent) expect((await rawExchange(url, bytes)).match(/HTTP\/1\.1 200 OK\r\n/g)).toHaveLength(2);
      const parsed = target.requests.slice(before);
      expect(parsed.map((r) => r.line)).toEqual([
        'GET /supportstateuser HTTP/1.1', 'GET /supportstateuser?last=1 HTTP/1.1',
        'GET /supportstateuser HTTP/1.1', 'GET /supportstateuser?last=1 HTTP/1.1',
        'POST /supportstateuser HTTP/1.1', 'GET /supportstateuser?last=1 HTTP/1.1',
      ]);
      expect(parsed.filter((_, i) => i % 2 === 0).map((r) => r.body.toString('latin1'))).toEqual([SMUGGLED, SMUGGLED, SMUGGLED]);
      expect(await stopped(s)).not.toBe(2);
      expect(summaryOf(dir).counts.exchanges.bySource).toEqual({ proxy: parsed.length });
    } finally {
      s.child.kill('SIGKILL');
    }
  });

  it('refuses with 400, forwarding nothing: Content-Length beside Transfer-Encoding, two Content-Lengths, a coding other than chunked; CONNECT is refused; absolute-form and foreign-Host requests go to the target; it listens on 127.0.0.1', async () => {
    const dir = mkdtempSync(join(work, 'refused-'));
    const s = servingProgram('cli/main', [...LEAN, '--proxy', '0', '--base-url', target.url, '--report-dir', dir]);
    try {
      const url = await s.url;
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const before = target.requests.length;
      for (const bytes of [
        `POST /supportstateuser HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n${chunked(SMUGGLED)}${LAST}`,
        `POST /supportstateuser HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\nabcde${LAST}`,
        `POST /supportstateuser HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n${chunked(SMUGGLED)}${LAST}`,
      ]) expect(await rawExchange(url, bytes)).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
      // An open proxy's tunnel: never made (Node closes the connection with no answer).
      expect(await rawExchange(url, 'CONNECT 127.0.0.1:9 HTTP/1.1\r\nHost: 127.0.0.1:9\r\n\r\n')).not.toMatch(/^HTTP\/1\.1 2/);
      expect(target.requests.length).toBe(before);
      for (const bytes of [
        'GET http://elsewhere.example/supportstateuser?x=1 HTTP/1.1\r\nHost: elsewhere.example\r\nConnection: close\r\n\r\n',
        'GET /supportstateuser?x=2 HTTP/1.1\r\nHost: elsewhere.example\r\nConnection: close\r\n\r\n',
      ]) expect(await rawExchange(url, bytes)).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
      const host = new URL(target.url).host;
      expect(target.requests.slice(before).map((r) => [r.line, r.headers.host])).toEqual([
        ['GET /supportstateuser?x=1 HTTP/1.1', host], ['GET /supportstateuser?x=2 HTTP/1.1', host],
      ]);
      await stopped(s);
      expect(s.output()).toMatch(/1 request\(s\) refused with 400, nothing of them forwarded: their framing, request target or Host could not be forwarded as they came \(each client was told which\)/);
    } finally {
      s.child.kill('SIGKILL');
    }
  });
});
