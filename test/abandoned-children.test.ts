// A test that times out or fails leaves nothing it started running: vitest abandons such a test
// mid-way (its finally blocks never run), so the helpers that start a program kill it, with every
// process it started, when the test ends (helpers/owned-children.ts). Two tests here end so on
// purpose (it.fails: their failure is the expected outcome), each with a proxy started, one through
// servingProgram, one through runProgram; the third finds neither proxy nor anything it started.
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runProgram, servingProgram } from './helpers/cli.js';
import { until } from './helpers/wait.js';

/** A report directory no other process names: the proxies' mark in their command lines. */
const mark = mkdtempSync(join(tmpdir(), 'abandoned-'));
const proxyArgs = (n: number) => ['--proxy', '0', '--base-url', 'http://127.0.0.1:9', '--report-dir', join(mark, String(n)), '--reports', 'summary'];

/** [pid, process group] of every process of this machine. */
function processes(): [number, number, string][] {
  const out: [number, number, string][] = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const pgid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
      out.push([Number(pid), pgid, readFileSync(`/proc/${pid}/cmdline`, 'utf8')]);
    } catch { /* ended while read */ }
  }
  return out;
}
const marked = () => processes().filter(([, , cmd]) => cmd.includes(mark));

const started: number[] = [];
// Whatever the outcome, this file leaves nothing behind (on code without the kill, it would).
afterAll(() => { for (const [pid] of marked()) process.kill(pid, 'SIGKILL'); });

describe.sequential('a test that ends abandoned leaves no process it started', () => {
  it.fails('(made to time out) waits on a proxy that never ends', { timeout: 2_000 }, async () => {
    const s = servingProgram('cli/main', proxyArgs(1));
    started.push(s.child.pid!);
    await s.exit;
  });

  it.fails('(made to fail) an assertion fails while a proxy run through runProgram goes on', async () => {
    void runProgram('cli/main', proxyArgs(2));
    const second = () => marked().find(([, , cmd]) => cmd.includes(join(mark, '2')));
    await until(() => second() !== undefined, 'the proxy run through runProgram');
    started.push(second()![0]);
    expect('the test failed').toBe('');
  });

  it('leaves neither proxy, nor any process either started, running', async () => {
    expect(started).toHaveLength(2);
    await until(() => marked().length === 0 && !processes().some(([, pgid]) => started.includes(pgid)), 'the abandoned proxies gone');
  });
});
