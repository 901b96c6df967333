// replay.sh sends a recorded request's header fields as they were sent: names as spelled, in order,
// each repeat its own line. It sent the exchange's map instead (lower-cased, repeats joined: X-Trace: 1
// and X-Trace: 2 went as one `x-trace: 1, 2`). A secret header in any case is still asked for, never
// written; and a « a client really sent in a plain value is no masked value: the request replays.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, servingProgram } from './helpers/cli.js';
import { rawExchange, startRawTarget, type ParsedRequest, type RawTarget } from './helpers/raw-target.js';

const SECRET = 'Bearer s3cr3t-t0ken-0f-the-cl1ent';
/** A second Authorization field of the same request, with another value. */
const SECOND = 'Basic c2Vjb25kLXNlY3JldC12YWx1ZQ==';
const ENV = { HEADER_AUTHORIZATION: SECRET, HEADER_AUTHORIZATION_2: SECOND };

const sh = (script: string, env: Record<string, string> = {}) => new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
  execFile('sh', [script], { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 60_000 }, (e, stdout, stderr) =>
    resolve({ code: e ? (typeof e.code === 'number' ? e.code : -1) : 0, stdout, stderr }));
});

interface Summary { checks: { id: string; status: string; evidence: { exchange: string }[] }[] }

let target: RawTarget;
beforeAll(async () => { target = await startRawTarget(() => 'HTTP/1.1 200 OK\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: 2\r\n\r\n{}'); });
afterAll(async () => { await target.close(); });

/** What the target got from replay.sh, each request by its request line. */
async function replayedBy(script: string, env: Record<string, string> = {}): Promise<ParsedRequest[]> {
  const before = target.requests.length;
  const out = await sh(script, env);
  expect([out.code, out.stderr]).toEqual([0, '']);
  return target.requests.slice(before);
}

describe('replay.sh after --proxy', () => {
  let dir: string;
  /** What the proxy forwarded: the fields replay.sh must send again. */
  const forwarded: ParsedRequest[] = [];
  /** A forwarded request's fields less the Connection its hop made (hop-by-hop: curl makes its own). */
  const recorded = (r: ParsedRequest) => r.fields.filter(([k]) => k.toLowerCase() !== 'connection');
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'replay-raw-fields-'));
    const s = servingProgram('cli/main', ['--proxy', '0', '--base-url', target.url, '--report-dir', dir, '--reports', 'summary']);
    try {
      const url = await s.url;
      const body = '{}';
      // A JSON record labelled text/plain (REQ-JSON-CONTENT-TYPE), its names in mixed case, a field twice.
      await rawExchange(url, `POST /supportstateuser HTTP/1.1\r\nHost: x\r\nX-Trace: 1\r\ncontent-TYPE: text/plain\r\nX-Trace: 2\r\nAUTHORIZATION: ${SECRET}\r\nauthorization: ${SECOND}\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`);
      // An integer as a string (REQ-JSON-TYPES), beside a plain member holding a «.
      const noted = Buffer.from('{"ownerId":"7","note":"a «quoted» note"}');
      await rawExchange(url, Buffer.concat([Buffer.from(`POST /user/confirmemail HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${noted.length}\r\nConnection: close\r\n\r\n`), noted]));
      forwarded.push(...target.requests);
      s.child.kill('SIGTERM');
      expect(await s.exit).toBe(1);
    } finally {
      s.child.kill('SIGKILL');
    }
    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as Summary;
    expect(summary.checks.filter((c) => c.status === 'failed').map((c) => c.id)).toEqual(expect.arrayContaining(['REQ-JSON-CONTENT-TYPE', 'REQ-JSON-TYPES']));
  }, 60_000);

  it('sends each header field as the target first got it: names as spelled, repeats apart, in order', async () => {
    const got = await replayedBy(join(dir, 'replay.sh'), ENV);
    const post = forwarded.find((r) => r.line.startsWith('POST /supportstateuser'))!;
    expect(post.fields.filter(([k]) => k === 'X-Trace')).toEqual([['X-Trace', '1'], ['X-Trace', '2']]);
    const replays = got.filter((r) => r.line === post.line);
    expect(replays.length).toBeGreaterThan(0);
    for (const r of replays) expect([r.fields, r.body.toString()]).toEqual([recorded(post), '{}']);
  });

  it('asks for the secret header recorded in upper case, and for its repeat apart, never writes their values', () => {
    const text = readFileSync(join(dir, 'replay.sh'), 'utf8');
    for (const secret of [SECRET.slice(7), SECOND.slice(6)]) expect(text).not.toContain(secret);
    // Traffic's secret headers are the clients' own, not a --header of the run.
    expect(text).toMatch(/^: "\$\{HEADER_AUTHORIZATION\?set HEADER_AUTHORIZATION to the value of the AUTHORIZATION header proxy\.\d+ was recorded with\}"$/m);
    expect(text).toMatch(/^: "\$\{HEADER_AUTHORIZATION_2\?set HEADER_AUTHORIZATION_2 to the value of field 2 named authorization that proxy\.\d+ was recorded with\}"$/m);
    expect(text).toContain(`-H "$(field 'AUTHORIZATION' "$HEADER_AUTHORIZATION")" -H "$(field 'authorization' "$HEADER_AUTHORIZATION_2")"`);
  });

  it('replays a request whose plain body member holds a literal «, sending it as it came', async () => {
    const got = await replayedBy(join(dir, 'replay.sh'), ENV);
    const noted = forwarded.find((r) => r.line.startsWith('POST /user/confirmemail'))!;
    const replays = got.filter((r) => r.line === noted.line);
    expect(replays.length).toBeGreaterThan(0);
    for (const r of replays) expect([r.fields, r.body.toString()]).toEqual([recorded(noted), '{"ownerId":"7","note":"a «quoted» note"}']);
  });
});

it('replay.sh after --har sends a recorded entry\'s header fields as recorded: names as spelled, repeats apart, in order', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'replay-raw-fields-har-'));
  const url = `${target.url}/user/confirmemail?ownerId=1`;
  const headers = [['Host', new URL(target.url).host], ['X-Trace', '1'], ['accept', 'application/json'], ['X-Trace', '2'], ['x-MiXed-Case', 'v']] as const;
  const har = join(dir, 'fields.har');
  // A GET of a POST route (REQ-METHOD), answered 405.
  writeFileSync(har, JSON.stringify({ log: { version: '1.2', creator: { name: 'test', version: '1' }, entries: [{
    startedDateTime: new Date().toISOString(), time: 1,
    request: { method: 'GET', url, httpVersion: 'HTTP/1.1', headers: headers.map(([name, value]) => ({ name, value })), queryString: [], cookies: [], headersSize: -1, bodySize: 0 },
    response: { status: 405, statusText: 'Method Not Allowed', httpVersion: 'HTTP/1.1', headers: [{ name: 'Content-Length', value: '0' }], cookies: [], content: { size: 0, mimeType: 'text/plain', text: '' }, redirectURL: '', headersSize: -1, bodySize: 0 },
    cache: {}, timings: { send: 0, wait: 1, receive: 0 },
  }] } }));
  const r = await runCli(['--har', har, '--report-dir', join(dir, 'out'), '--reports', 'summary', '--quiet']);
  expect(r.code, r.stderr).toBe(1);
  const got = await replayedBy(join(dir, 'out', 'replay.sh'));
  expect(got.length).toBeGreaterThan(0);
  for (const q of got) expect([q.line, q.fields]).toEqual(['GET /user/confirmemail?ownerId=1 HTTP/1.1', headers]);
}, 60_000);
