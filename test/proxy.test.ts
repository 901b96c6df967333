// The validating proxy (--proxy): what a client gets through it is what it gets directly (status,
// reason phrase, headers in order and case, body bytes); its report of some traffic is the report a
// HAR of the same traffic gives; a fault of the target is printed as it happens and fails the run;
// secrets in the traffic reach no output; an unreachable target is said so.
import { execFile } from 'node:child_process';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { getPriority, platform, tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { JsonServiceClient } from '@servicestack/client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Exchange } from '../lib/http/exchange.js';
import { startReference, type RunningReference } from '../lib/reference/server.js';
import { FAULTS } from '../lib/reference/variants.js';
import { judgeable, startProxy, type ForwardedExchange, type RunningProxy } from '../lib/traffic/proxy.js';
import { launchChromium } from './helpers/browser.js';
import { runCli, servingProgram, WITHOUT_HTML } from './helpers/cli.js';
import { until } from './helpers/wait.js';
import { files, readable } from './helpers/outputs.js';
import { recordPageTraffic } from './helpers/page-traffic.js';
import { SOAP_REQUEST } from './helpers/reference.js';
import { SupportStateUserLoginRequest } from './helpers/servicestack-dtos.js';

interface Raw { status: number; reason: string; headers: string[]; body: Buffer }
interface Call { method: string; path: string; headers?: Record<string, string>; body?: string }

/** One exchange at the byte level: the answer's raw header list, as received. */
function rawCall(base: string, c: Call): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}${c.path}`, { method: c.method, headers: { ...c.headers, ...(c.body ? { 'content-length': String(Buffer.byteLength(c.body)) } : {}) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => resolve({ status: res.statusCode!, reason: res.statusMessage!, headers: res.rawHeaders, body: Buffer.concat(chunks) }));
      res.on('close', () => { if (!res.complete) reject(new Error(`the answer was cut after ${Buffer.concat(chunks).length} bytes`)); });
    });
    req.on('error', reject);
    req.end(c.body);
  });
}

/** One Chromium for the file, launched on first use: a launch costs most of a CPU-second. */
let chromium: Promise<Browser> | undefined;
const browser = () => (chromium ??= launchChromium());
afterAll(async () => { await (await chromium)?.close(); });

/** Headers that describe one connection or one moment, not the answer. */
const PER_HOP = /^(date|connection|keep-alive|transfer-encoding)$/i;
const endToEnd = (raw: string[]) => raw.flatMap((v, i) => (i % 2 === 0 && !PER_HOP.test(v) ? [`${v}: ${raw[i + 1]}`] : []));

const JSON_TYPE = { 'content-type': 'application/json' };
const CALLS: Call[] = [
  { method: 'POST', path: '/supportstateuser', headers: JSON_TYPE, body: '{"userName":"jdoe.support"}' },
  { method: 'POST', path: '/json/reply/SupportStateUserLoginRequest', headers: JSON_TYPE, body: '{"userName":"someone.else"}' },
  { method: 'POST', path: '/supportstateuser.json', headers: { ...JSON_TYPE, accept: 'application/xml' }, body: '{}' },
  { method: 'POST', path: '/supportstateuser?format=json', headers: JSON_TYPE, body: '{}' },
  { method: 'POST', path: '/supportstateuser?callback=cb', headers: JSON_TYPE, body: '{}' },
  { method: 'POST', path: '/user/confirmemail', headers: JSON_TYPE, body: '{"recoveryToken":"r","ownerId":7}' },
  { method: 'OPTIONS', path: '/supportstateuser' },
  { method: 'POST', path: '/soap11', headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: '"ImpersonateLogoutRequest"' }, body: SOAP_REQUEST },
  { method: 'GET', path: '/supportstateuser' },
  { method: 'POST', path: '/user/confirmemail', headers: { 'content-type': 'text/plain' }, body: 'x' },
  { method: 'GET', path: '/no/such/route?x=1' },
];

describe('forwarding: the same bytes as directly', () => {
  let ref: RunningReference;
  let odd: Server;
  let oddUrl: string;
  let proxy: RunningProxy;
  let oddProxy: RunningProxy;
  const seen: Exchange[] = [];
  const ODD_BODY = JSON.stringify({ userName: 'gz' });

  beforeAll(async () => {
    ref = await startReference();
    // A target with a reason phrase of its own, repeated headers in mixed case, and a gzip body.
    odd = createServer((_req, res) => {
      res.writeHead(200, 'Everything Fine', ['X-Mixed-Case', 'A', 'x-mixed-case', 'B', 'Content-Type', 'application/json', 'Content-Encoding', 'gzip', 'Set-Cookie', 'a=1', 'Set-Cookie', 'b=2']);
      res.end(gzipSync(ODD_BODY));
    });
    await new Promise<void>((r) => odd.listen(0, '127.0.0.1', r));
    oddUrl = `http://127.0.0.1:${(odd.address() as AddressInfo).port}`;
    const options = { port: 0, maxBodyBytes: 10 * 1024 * 1024, timeoutMs: 30_000, onExchange: (ex: ForwardedExchange) => seen.push(judgeable(ex, 10 * 1024 * 1024)) };
    proxy = await startProxy({ ...options, target: ref.url });
    oddProxy = await startProxy({ ...options, target: oddUrl });
  });
  afterAll(async () => {
    await Promise.all([proxy.close(0), oddProxy.close(0), ref.close(), new Promise((r) => odd.close(r))]);
  });

  it.each(CALLS.map((c) => [`${c.method} ${c.path}`, c] as const))('%s', async (_name, call) => {
    const [direct, proxied] = [await rawCall(ref.url, call), await rawCall(proxy.url, call)];
    expect(proxied.status).toBe(direct.status);
    expect(proxied.reason).toBe(direct.reason);
    expect(endToEnd(proxied.headers)).toEqual(endToEnd(direct.headers));
    expect(proxied.body.equals(direct.body)).toBe(true);
  });

  it('keeps a reason phrase, repeated headers in their case and order, and encoded bytes; judges the body decoded from the gzip its client offered, as a probe\'s', async () => {
    const before = seen.length;
    const call = { method: 'GET', path: '/', headers: { 'accept-encoding': 'gzip' } };
    const [direct, proxied] = [await rawCall(oddUrl, call), await rawCall(oddProxy.url, call)];
    expect([proxied.status, proxied.reason]).toEqual([200, 'Everything Fine']);
    expect(endToEnd(proxied.headers)).toEqual(endToEnd(direct.headers));
    expect(endToEnd(proxied.headers).slice(0, 2)).toEqual(['X-Mixed-Case: A', 'x-mixed-case: B']);
    expect(proxied.body.equals(direct.body)).toBe(true);
    await until(() => seen.slice(before).some((e) => e.request.url.startsWith(oddUrl)), 'the proxy to record the exchange');
    const ex = seen.slice(before).find((e) => e.request.url.startsWith(oddUrl))!;
    expect(ex.response!.body.toString()).toBe(ODD_BODY);
    expect([ex.response!.headers['content-encoding'], ex.response!.contentCoding]).toEqual(['gzip', { codings: ['gzip'] }]);
    expect(ex.origin).toEqual({ source: 'proxy', vouched: false });
  });

  it('forwards request bytes that are not UTF-8 as they are, and records where the first bad one is', async () => {
    const bytes = Buffer.from('{"userName":"Ren\u00e9"}', 'latin1');
    const before = seen.length;
    const answer = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${proxy.url}/supportstateuser`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': String(bytes.length) } }, (res) => { res.resume(); res.on('end', () => resolve(res.statusCode!)); });
      req.on('error', reject);
      req.end(bytes);
    });
    expect(answer).toBe(400); // the reference refuses it too
    await until(() => seen.length > before, 'the proxy to record the exchange');
    expect(seen.slice(before).map((e) => e.request.notUtf8At)).toEqual([16]);
  });

  it('answers 504 when the target sends no headers in time, never cuts a slow answer or a slow upload, passes big headers, early hints and trailers, and judges an answer the target cuts', async () => {
    // One target that never answers, one that answers at once and sends its body in two parts with
    // a pause longer than the proxy's limit between them: the limit is on the headers only. The pause
    // is not timed: the second part goes once the proxy has answered 504 to a request that started
    // after the first part came, so at least the limit has passed; a slow upload is held the same way.
    let release!: () => void;
    const released = new Promise<void>((r) => { release = r; });
    const slow = createServer({ maxHeaderSize: 256 * 1024 }, (req, res) => {
      if (req.url === '/silent') return;
      if (req.url === '/upload') { // answers once the whole request is in: how long it was, and its cookie
        let n = 0;
        req.on('data', (c: Buffer) => { n += c.length; });
        req.on('end', () => { res.writeHead(200, { 'x-big': 'b'.repeat(40_000) }); res.end(`${n} ${String(req.headers.cookie ?? '').length}`); });
        return;
      }
      if (req.url === '/trailer') { // an early hint, then a chunked answer with a trailer after its body
        res.writeEarlyHints({ link: '</style.css>; rel=preload; as=style' });
        res.writeHead(200, { 'content-type': 'application/json', trailer: 'X-Checksum' });
        res.write('{"userName":"t"}');
        res.addTrailers({ 'X-Checksum': 'abc123' });
        res.end();
        return;
      }
      if (req.url === '/cut') { // headers promise 1000 bytes; 100 come, then the connection is reset
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
        res.write('x'.repeat(100));
        setTimeout(() => res.socket?.destroy(), 50);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"userName":');
      void released.then(() => res.end('"late"}'));
    });
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
    const got: Exchange[] = [];
    // The limit is the subject (a target that never answers); 2 s so a loaded machine still gets the
    // other answers' headers through in time.
    const p = await startProxy({ target: `http://127.0.0.1:${(slow.address() as AddressInfo).port}`, port: 0, maxBodyBytes: 1024, timeoutMs: 2000, onExchange: (ex) => got.push(judgeable(ex, 1024)) });
    try {
      // The streamed answer's headers are in; a slow upload has sent its first part.
      const streamed = await new Promise<{ whole: Promise<{ status: number; body: string }> }>((resolve, reject) => {
        const req = httpRequest(`${p.url}/streamed`, (res) => {
          let body = '';
          res.on('data', (d: Buffer) => { body += d.toString(); });
          resolve({ whole: new Promise((done) => res.on('end', () => done({ status: res.statusCode!, body }))) });
        });
        req.on('error', reject);
        req.end();
      });
      // A slow upload (longer than the limit) is the client's pace, and headers past Node's 16 KiB pass both ways.
      const uploaded = new Promise<{ status: number; body: string; big: number }>((resolve, reject) => {
        const req = httpRequest(`${p.url}/upload`, { method: 'POST', maxHeaderSize: 256 * 1024, headers: { cookie: 'c'.repeat(20_000), 'content-type': 'application/json' } }, (res) => {
          let body = '';
          res.on('data', (d: Buffer) => { body += d.toString(); });
          res.on('end', () => resolve({ status: res.statusCode!, body, big: String(res.headers['x-big'] ?? '').length }));
        });
        req.on('error', reject);
        req.write('{"userName":');
        void released.then(() => req.end('"slow"}'));
      });
      const silent = await rawCall(p.url, { method: 'GET', path: '/silent' });
      expect([silent.status, silent.body.toString()]).toEqual([504, expect.stringMatching(/^conformance proxy: no answer from 127\.0\.0\.1:\d+ in time\n$/)]);
      release(); // at least the limit has passed since the first parts
      expect(await streamed.whole).toEqual({ status: 200, body: '{"userName":"late"}' });
      expect(await uploaded).toEqual({ status: 200, body: '19 20000', big: 40_000 });
      await expect(rawCall(p.url, { method: 'GET', path: '/cut' })).rejects.toThrow(/the answer was cut after 100 bytes/);
      // Early hints and trailers are end to end (RFC 9110 6.6.2, 15.2.4): relayed as they came.
      const relayed = await new Promise<{ hints: string[]; trailers: string[]; body: string }>((resolve, reject) => {
        const hints: string[] = [];
        const req = httpRequest(`${p.url}/trailer`, { headers: { te: 'trailers' } }, (res) => {
          let body = '';
          res.on('data', (d: Buffer) => { body += d.toString(); });
          res.on('end', () => resolve({ hints, trailers: res.rawTrailers, body }));
        });
        req.on('information', (info) => { if (info.statusCode === 103) hints.push(...info.rawHeaders); });
        req.on('error', reject);
        req.end();
      });
      expect(relayed).toEqual({ hints: ['Link', '</style.css>; rel=preload; as=style'], trailers: ['X-Checksum', 'abc123'], body: '{"userName":"t"}' });
      await until(() => got.length >= 5, 'the proxy to record five exchanges');
      expect(got.map((e) => e.error?.kind ?? e.response!.body.toString()).sort()).toEqual(['headers-timeout', 'reset', '{"userName":"late"}', '{"userName":"t"}', '19 20000'].sort());
      expect(got.find((e) => e.error?.kind === 'reset')!.error!.message).toMatch(/^the answer from 127\.0\.0\.1:\d+ was cut after 100 bytes of its body$/);
    } finally {
      slow.closeAllConnections();
      await Promise.all([p.close(0), new Promise((r) => slow.close(r))]);
    }
  });

  it("ServiceStack's JsonServiceClient reads the same record through the proxy as directly", async () => {
    const request = new SupportStateUserLoginRequest({ userName: 'jdoe.support', searchValues: 'x' });
    const read = (base: string) => { const c = new JsonServiceClient(base); c.basePath = null; return c.post(request); };
    expect(await read(proxy.url)).toEqual(await read(ref.url));
  });

  it('curl and Chromium get through the proxy exactly what they get directly', async () => {
    // curl, as a user types it: the whole answer (status line, headers, body) but the per-hop headers.
    const curl = (base: string, c: Call) => new Promise<string>((resolve, reject) => {
      const args = ['-sS', '-i', '-X', c.method, ...Object.entries(c.headers ?? {}).flatMap(([k, v]) => ['-H', `${k}: ${v}`]), ...(c.body ? ['--data-binary', c.body] : []), `${base}${c.path}`];
      execFile('curl', args, (e, stdout) => {
        if (e) reject(e);
        else resolve(stdout.split('\r\n').filter((l) => !/^(date|connection|keep-alive|transfer-encoding):/i.test(l)).join('\r\n'));
      });
    });
    for (const c of CALLS) expect(await curl(proxy.url, c), `${c.method} ${c.path}`).toBe(await curl(ref.url, c));
    // Chromium: a page's fetch() of every call, same origin, directly and through the proxy.
    const shared = await browser();
    const pages: Page[] = [];
    try {
      const seenBy = async (base: string) => {
        const page = await shared.newPage();
        pages.push(page);
        await page.goto(`${base}/`);
        return page.evaluate(async (calls) => {
          const out: unknown[] = [];
          for (const c of calls) {
            const r = await fetch(c.path, { method: c.method, headers: c.headers ?? {}, ...(c.body ? { body: c.body } : {}) });
            out.push([r.status, r.statusText, [...r.headers].filter(([k]) => !['date', 'connection', 'keep-alive', 'transfer-encoding'].includes(k)), await r.text()]);
          }
          return out;
        }, CALLS);
      };
      expect(await seenBy(proxy.url)).toEqual(await seenBy(ref.url));
    } finally {
      await Promise.all(pages.map((p) => p.close()));
    }
  });
});

describe('npm run conformance -- --proxy', () => {
  const TOKEN = 'CANARY-PROXY-BEARER-5521';
  const work = mkdtempSync(join(tmpdir(), 'proxy-'));
  const dirOf = (name: string) => mkdtempSync(join(work, `${name}-`));
  const summaryOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as { verdict: string; checks: { id: string; status: string }[]; counts: { exchanges: { kinds: Record<string, number>; bySource: Record<string, number> } } };
  let ref: RunningReference;
  let faulty: RunningReference;
  beforeAll(async () => { [ref, faulty] = await Promise.all([startReference(), startReference({ variants: FAULTS.filter((f) => f.name === 'callback-renamed') })]); });
  afterAll(async () => { await Promise.all([ref.close(), faulty.close()]); });

  it("judges a browser's traffic as a HAR of the same traffic does, and no output holds the page's token", async () => {
    const dir = dirOf('proxy');
    const s = servingProgram('cli/main', ['--proxy', '0', '--base-url', ref.url, '--report-dir', dir, ...WITHOUT_HTML]);
    try {
      const url = await s.url;
      const har = await recordPageTraffic(url, join(work, 'through-proxy.har'), TOKEN, await browser());
      s.child.kill('SIGTERM');
      expect(await s.exit).toBe(0);
      const fromHar = dirOf('har');
      // The comparison reads summary.json alone; the proxy's run above writes every output but report.html (WITHOUT_HTML), all scanned.
      const h = await runCli(['--har', har, '--base-url', url, '--report-dir', fromHar, '--quiet', '--reports', 'summary']);
      expect(h.code).toBe(0);
      const [p, r] = [summaryOf(dir), summaryOf(fromHar)];
      expect(p.counts.exchanges.bySource).toEqual({ proxy: 9 }); // the page itself, and its eight calls
      expect(p.counts.exchanges.kinds).toEqual(r.counts.exchanges.kinds);
      const statuses = (x: typeof p) => Object.fromEntries(x.checks.map((c) => [c.id, c.status]));
      expect(statuses(p)).toEqual(statuses(r));
      expect(p.checks.filter((c) => c.status === 'passed').length).toBeGreaterThan(20);
      const outputs = [s.output(), ...files(dir).map(readable)].join('\n');
      expect(outputs).not.toContain(TOKEN.slice(0, 14));
    } finally {
      s.child.kill('SIGKILL');
    }
  });

  it("prints a target's fault as it happens, once, and fails the run", async () => {
    const dir = dirOf('faulty');
    const s = servingProgram('cli/main', ['--proxy', '0', '--base-url', faulty.url, '--report-dir', dir, '--reports', 'summary']);
    try {
      const url = await s.url;
      for (let i = 0; i < 3; i++) {
        expect((await fetch(`${url}/supportstateuser?callback=cb`, { method: 'POST', headers: JSON_TYPE, body: '{}' })).status).toBe(200);
      }
      await until(() => /✗ JSONP-CALLBACK/.test(s.output()), 'the finding to be printed');
      expect(s.output().match(/✗ JSONP-CALLBACK \[MUST\] proxy\.\d+ POST \/supportstateuser: /g)).toHaveLength(1);
      s.child.kill('SIGTERM');
      expect(await s.exit).toBe(1);
      expect(summaryOf(dir).checks.find((c) => c.id === 'JSONP-CALLBACK')!.status).toBe('failed');
    } finally {
      s.child.kill('SIGKILL');
    }
  });

  it('answers 502 when the target cannot be reached, and the run exits 2 naming it', async () => {
    const dir = dirOf('unreachable');
    const s = servingProgram('cli/main', ['--proxy', '0', '--base-url', 'http://127.0.0.1:9', '--report-dir', dir, '--reports', 'summary']);
    try {
      const url = await s.url;
      const r = await fetch(`${url}/supportstateuser`, { method: 'POST', headers: JSON_TYPE, body: '{}' });
      expect(r.status).toBe(502);
      expect(await r.text()).toMatch(/^conformance proxy: connection refused by 127\.0\.0\.1:9/);
      s.child.kill('SIGTERM');
      expect(await s.exit).toBe(2);
      expect(s.output()).toMatch(/cannot reach http:\/\/127\.0\.0\.1:9: connection refused/);
    } finally {
      s.child.kill('SIGKILL');
    }
  });

  it('judging the clients (--judge client) with the target unreachable, a client\'s failed MUST check stays failed, its side NOT CONFORMANT (it was turned to "not judged")', async () => {
    const dir = dirOf('unreachable-client');
    const s = servingProgram('cli/main', ['--proxy', '0', '--base-url', 'http://127.0.0.1:9', '--judge', 'client', '--report-dir', dir, '--reports', 'summary']);
    try {
      const url = await s.url;
      const r = await fetch(`${url}/supportstateuser`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' });
      expect(r.status).toBe(502);
      await r.text();
      s.child.kill('SIGTERM');
      expect(await s.exit).toBe(2);
      const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as { verdict: string; sides: unknown; checks: { id: string; status: string }[] };
      expect([summary.verdict, summary.sides, summary.checks.find((c) => c.id === 'REQ-JSON-CONTENT-TYPE')?.status]).toEqual(['unreachable', { client: 'non-conformant' }, 'failed']);
    } finally {
      s.child.kill('SIGKILL');
    }
  });

  // Linux keeps a nice value per thread (/proc/PID/task/TID/stat, field 19). The child starts at the
  // runner's nice value; at 19 already, a judge lowered to 19 cannot be told from one left alone.
  const seeNice = platform() === 'linux' && getPriority() < 19;
  it.skipIf(!seeNice)(seeNice
    ? 'judges on a thread of its own at nice 19, never on the thread that forwards (which keeps the runner\'s nice value)'
    : `SKIPPED: the judge thread's priority cannot be seen here (${platform() !== 'linux' ? 'not Linux: no per-thread nice values' : 'the runner already runs at nice 19'})`, async () => {
    const s = servingProgram('cli/main', ['--proxy', '0', '--base-url', ref.url, '--report-dir', dirOf('threads'), '--reports', 'summary']);
    try {
      await s.url;
      const pid = s.child.pid!;
      const niceOf = (tid: string) => Number(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ')[16]);
      const nices = () => readdirSync(`/proc/${pid}/task`).map((tid) => [tid, niceOf(tid)] as const);
      await until(() => nices().some(([, n]) => n === 19), 'the judge thread to lower its priority');
      expect(niceOf(String(pid))).toBe(getPriority()); // the forwarding (main) thread: as started, below 19
      expect(nices().filter(([, n]) => n === 19)).toHaveLength(1); // the judge's, and no other
      s.child.kill('SIGTERM');
      expect(await s.exit).toBe(2); // nothing was observed
    } finally {
      s.child.kill('SIGKILL');
    }
  });

  it.each([
    [['--proxy', '0'], /^conformance: --proxy forwards to a deployment: give its --base-url\n$/],
    [['--proxy', '0', '--base-url', 'http://127.0.0.1:9', '--har', 'x.har'], /^conformance: --proxy judges the traffic it forwards .* --har/],
    [['--proxy', 'a:b:c', '--base-url', 'http://127.0.0.1:9'], /^conformance: --proxy must be PORT or HOST:PORT/],
  ])('refuses %j in one line, exit 2', async (args, message) => {
    const r = await runCli([...args, '--report-dir', dirOf('bad')]);
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toMatch(message);
  });
});
