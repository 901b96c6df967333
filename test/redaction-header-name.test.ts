// A response header whose NAME is the client's X-Api-Key value (issue 21 #4): through the validating
// proxy, no output may hold the value when the exchange has a finding (its texts are then shown).
import { createServer, type Server } from 'node:http';
import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { servingProgram, WITHOUT_HTML } from './helpers/cli.js';
import { files, readable } from './helpers/outputs.js';
import { until } from './helpers/wait.js';

/** Node lower-cases a header name; its parts between | ' * ^ are what a token-by-token search misses. */
const KEY = "Qv9|Kan4ryVx'Zt1wMm*Qz9^Xw7";
const FRAGMENTS = [KEY.toLowerCase(), 'qv9|', '*qz9^', '^xw7', 'kan4ryvx', 'zt1wmm'];

describe('a header name holding the client\'s X-Api-Key value', () => {
  let target: Server;
  let url: string;
  beforeAll(async () => {
    // Echoes the key as a header name; a wrong Content-Type on /supportstateuser, an unknown member elsewhere: findings both.
    target = createServer((req, res) => {
      const key = String(req.headers['x-api-key'] ?? 'none');
      const finding = req.url!.startsWith('/supportstateuser');
      res.writeHead(200, { [key]: '1', 'content-type': finding ? 'text/plain' : 'application/json; charset=utf-8' });
      res.end(finding ? 'not json' : '{"isSuccess":true}');
    });
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => target.close(() => r())));

  it('reaches no output of the proxy when its exchange has a finding', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hdr-name-'));
    const s = servingProgram('cli/main', ['--proxy', '0', '--base-url', url, '--report-dir', dir, '--judge-priority', 'normal', ...WITHOUT_HTML]);
    try {
      const proxy = await s.url;
      for (const path of ['/supportstateuser', '/user/confirmemail']) {
        const r = await fetch(`${proxy}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': KEY }, body: '{}' });
        expect(r.headers.get(KEY)).toBe('1'); // forwarded as it came
      }
      await until(() => /✗ /.test(s.output()), 'the finding on the console');
      s.child.kill('SIGTERM');
      expect(await s.exit).toBe(1);
      const outputs = [['console', s.output()], ...files(dir).map((f) => [f.slice(dir.length + 1), readable(f)])];
      expect(outputs.length).toBeGreaterThan(50);
      const hits = outputs.flatMap(([name, text]) => FRAGMENTS.filter((f) => text!.toLowerCase().includes(f)).map((f) => `${f} in ${name}`));
      expect(hits).toEqual([]);
    } finally {
      s.child.kill('SIGKILL');
    }
  }, 300_000);
});
