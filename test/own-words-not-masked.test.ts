// A target chooses what the redactor learns, and a learned value is masked wherever it stands whole.
// An independent review had a target answer with credential members spelling words of the harness's
// own text: its curl options ("connect-timeout", "max-time", "data-binary") and its own host:port, and
// a personal member "application/json". Every curl command then read `--«credential…» 10`, replay.sh
// refused every replay as "holding a credential" the probe never sent, and summary.json, junit.xml,
// traceability.md and report.html's title named the target `http://«secret: 14 chars»`. The URLs the
// harness was given, the words of its commands, and the requests it built itself are its own text:
// shown as they are, the secrets it was given alone masked. The values, where the target sent them,
// are still masked.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliRun } from './helpers/cli.js';
import { useReference } from './helpers/reference.js';

const ref = useReference();
let server: Server;
let url: string;
let host: string;
beforeAll(async () => {
  // The reference's answers, their credential members set to the harness's words and this target's
  // host, a personal one to a media type it sends, and userId a string (a MUST failure: replay.sh replays it).
  server = createServer(async (q, s) => {
    const chunks: Buffer[] = [];
    for await (const c of q) chunks.push(c as Buffer);
    const r = await fetch(`${ref.url}${q.url}`, { method: q.method, headers: { 'content-type': q.headers['content-type'] ?? 'application/json', ...(q.headers.soapaction ? { soapaction: String(q.headers.soapaction) } : {}), ...(q.headers.accept ? { accept: String(q.headers.accept) } : {}) }, body: q.method === 'GET' || q.method === 'HEAD' ? undefined : Buffer.concat(chunks) });
    let text = await r.text();
    if ((r.headers.get('content-type') ?? '').includes('json') && text.startsWith('{"userName"')) {
      text = JSON.stringify({ ...JSON.parse(text) as object, hxToken: 'connect-timeout', jToken: 'data-binary', basicAuthHeader: 'max-time', apiKey: host, displayName: 'application/json', userId: 'not-an-integer' });
    }
    s.writeHead(r.status, { 'content-type': r.headers.get('content-type') ?? 'text/plain' });
    s.end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  url = `http://${host}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

let dir: string;
let run: CliRun;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'own-words-'));
  run = await runCli(['--base-url', url, '--reports', 'summary,junit,traceability', '--report-dir', dir]);
}, 120_000);

describe('a target whose secrets spell the harness\'s own words and its own host', () => {
  it('fails the run (userId a string), and every report names the target as given', () => {
    expect(run.code, run.stderr).toBe(1);
    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as { target: { baseUrl: string }; configuration: { options: Record<string, unknown>; baseUrl: string } };
    expect([summary.target.baseUrl, summary.configuration.options['base-url'], summary.configuration.baseUrl]).toEqual([url, url, url]);
    expect(readFileSync(join(dir, 'traceability.md'), 'utf8').split('\n')[0]).toBe(`# Traceability: \` ${url} \``);
    expect(readFileSync(join(dir, 'junit.xml'), 'utf8')).toContain(`<property name="target" value="${url}"/>`);
  });

  it('prints each replay command whole: its options, the request the harness built and its URL', () => {
    const replays = run.stdout.split('\n').filter((l) => l.includes('replay: curl'));
    expect(replays.length).toBeGreaterThan(0);
    for (const l of replays) {
      expect(l).toMatch(/replay: curl -sS --connect-timeout \d+ --max-time \d+ -i /);
      expect(l).not.toContain('«');
      expect(l).toContain(`'${url}/`);
    }
    expect(replays.some((l) => l.includes("-H 'content-type: application/json' ") && l.includes(' --data-binary '))).toBe(true);
  });

  it('shows the requests the harness built as sent, and still masks the values where the target sent them', () => {
    const exchanges = readFileSync(join(dir, 'exchanges.json'), 'utf8');
    const shown = JSON.parse(exchanges) as { request: string; response?: string }[];
    const login = shown.find((e) => e.request.startsWith(`POST ${url}/supportstateuser\n`))!;
    expect(login).toBeDefined();
    expect(login.request).toContain('\ncontent-type: application/json\n');
    for (const leaked of ['"connect-timeout"', '"data-binary"', '"max-time"', `"apiKey":"${host}"`, '"displayName":"application/json"']) expect(exchanges).not.toContain(leaked);
  });

  it('replay.sh replays the failures, none refused as holding a credential', async () => {
    const r = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile('sh', [join(dir, 'replay.sh')], { env: { PATH: process.env.PATH ?? '', REPLAY_MAX_TIME: '10' }, timeout: 60_000 }, (e, stdout, stderr) =>
        resolve({ code: e ? (typeof e.code === 'number' ? e.code : -1) : 0, stdout, stderr }));
    });
    expect(r.stderr).toBe('');
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.filter((l) => l.includes('not replayed'))).toEqual([]);
    expect(lines.some((l) => /^[A-Z0-9-]+ \(MUST\) \S+: 200 /.test(l))).toBe(true);
  }, 60_000);
});
