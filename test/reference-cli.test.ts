// `npm run reference`: serves until stopped, prints its URL, takes repeatable --fault and --style,
// lists them, and refuses bad arguments in one line with exit 2.
import { execFile, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { call } from './helpers/reference.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const args = (rest: string[]) => ['bin/run.mjs', 'cli/reference', ...rest];

function once(rest: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => execFile(process.execPath, args(rest), { cwd: ROOT, timeout: 30_000 },
    (e, stdout, stderr) => resolve({ code: e ? Number(e.code) : 0, stdout, stderr })));
}

describe('reference CLI', () => {
  it('serves with two faults and a style, each in effect', async () => {
    const child = spawn(process.execPath, args(['--port', '0', '--fault', 'callback-renamed', '--fault', 'login-reply-missing', '--style', 'json-indented']), { cwd: ROOT });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (d: Buffer) => { const m = /listening on (\S+)/.exec(d.toString()); if (m) resolve(m[1]!); });
        child.on('exit', () => reject(new Error('exited early')));
      });
      expect((await call(`${url}/supportstateuser?callback=cb`, { json: {} })).body).toMatch(/^callback\(\{\n {2}"userName"/);
      expect((await call(`${url}/json/reply/SupportStateUserLoginRequest`, { json: {} })).status).toBe(404);
    } finally {
      child.kill('SIGTERM');
    }
  });

  it('--list shows every fault and style in one line each', async () => {
    const r = await once(['--list']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^fault login-route-missing +POST \/supportstateuser answers 404/m);
    expect(r.stdout).toMatch(/^style envelope-prefix-soap +the envelope prefix is soap:/m);
  });

  it.each([[['--fault', 'nope']], [['--port', 'x']], [['--bogus']], [['--reports', 'summary']], [['--judge-clients', '--reports', 'pdf']]])('refuses %j in one line, exit 2', async (bad) => {
    const r = await once(bad);
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toMatch(/^reference: /);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
