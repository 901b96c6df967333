// A HAR entry whose URL holds a user name and password (http://usr:pw…@host/…, RFC 3986 3.2.1): the
// password was shown in summary.json, exchanges.json and replay.sh under --show-personal-data (whose
// help says credentials stay hidden), masked without it only because it looked like an e-mail
// address; and its curl made an Authorization header of them that the recorded request did not carry.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { startReference, type ReceivedRequest } from '../lib/reference/server.js';
import { FAULTS } from '../lib/reference/variants.js';
import { runCli } from './helpers/cli.js';

const PASSWORD = 'pw12345678';

it('its password is in no output, --show-personal-data or not, and the replay sends the request as recorded, with no Authorization', async () => {
  const received: ReceivedRequest[] = [];
  const ref = await startReference({ variants: FAULTS.filter((f) => f.name === 'json-guid-dashed-at-depth'), observer: { ownRoute: (r) => { received.push(r); return undefined; } } });
  try {
    const body = '{"userName":"jdoe.support","searchValues":"x"}';
    const got = await fetch(`${ref.url}/supportstateuser`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const text = await got.text();
    const entry = {
      startedDateTime: new Date().toISOString(), time: 1,
      request: { method: 'POST', url: ref.url.replace('http://', `http://usr:${PASSWORD}@`) + '/supportstateuser', httpVersion: 'HTTP/1.1', headers: [{ name: 'Content-Type', value: 'application/json' }, { name: 'Content-Length', value: String(body.length) }], queryString: [], cookies: [], headersSize: -1, bodySize: body.length, postData: { mimeType: 'application/json', text: body } },
      response: { status: got.status, statusText: 'OK', httpVersion: 'HTTP/1.1', headers: [...got.headers].map(([name, value]) => ({ name, value })), cookies: [], content: { size: text.length, mimeType: got.headers.get('content-type') ?? '', text }, redirectURL: '', headersSize: -1, bodySize: -1 },
      cache: {}, timings: { send: 0, wait: 1, receive: 0 },
    };
    const dir = mkdtempSync(join(tmpdir(), 'har-url-userinfo-'));
    const har = join(dir, 'userinfo.har');
    writeFileSync(har, JSON.stringify({ log: { version: '1.2', creator: { name: 'test', version: '1' }, entries: [entry] } }));
    for (const shown of [[], ['--show-personal-data']]) {
      const out = join(dir, `out${shown.length}`);
      const r = await runCli(['--har', har, '--report-dir', out, '--reports', 'summary,traceability,junit', '--quiet', ...shown]);
      expect([r.code, r.stderr, r.stdout.includes(PASSWORD)], out).toEqual([1, '', false]);
      for (const f of readdirSync(out)) expect(readFileSync(join(out, f), 'utf8').includes(PASSWORD), `${out}/${f}`).toBe(false);
      const from = received.length;
      const replay = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => execFile('sh', [join(out, 'replay.sh')], { env: { PATH: process.env.PATH ?? '' }, timeout: 60_000 }, (e, stdout, stderr) => resolve({ code: e ? Number(e.code) : 0, stdout, stderr })));
      // Without the flag its personal data is masked: not replayed, saying so; with it, sent as recorded.
      expect([replay.code, replay.stderr, /not replayed: its request holds personal data/.test(replay.stdout), received.slice(from).map((q) => [q.url, q.headers['authorization'], q.body])])
        .toEqual([0, '', !shown.length, shown.length ? [['/supportstateuser', undefined, body]] : []]);
    }
  } finally {
    await ref.close();
  }
}, 60_000);
