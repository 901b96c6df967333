// The Allure CLI loads ahead of its input (html.ts loadAllureAhead): a run that starts it and then
// needs no HTML (the presentation failed, the run ended) neither waits for it nor leaves it behind.
// Writing report.html through it is covered wherever a run writes one (report-files.test.ts, package.test.ts).
import { execFile } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../lib/paths.js';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('the Allure CLI loaded ahead and never used', () => {
  it('does not keep the process that started it open, and ends once that process has', async () => {
    const script = `const { register } = await import('tsx/esm/api'); register();
      const { loadAllureAhead } = await import(${JSON.stringify(pathToFileURL(fromRoot('lib', 'reporting', 'html.ts')).href)});
      process.stdout.write(String(loadAllureAhead()));`;
    const out = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
      const child = execFile(process.execPath, ['--input-type=module', '-e', script], { cwd: fromRoot(), timeout: 60_000 }, (_e, stdout) => resolve({ code: child.exitCode, stdout }));
    });
    expect(out.code).toBe(0);
    const pid = Number(out.stdout);
    expect(pid).toBeGreaterThan(0);
    // It reads an empty stdin once its starter is gone, and ends (a hang here is the test's timeout).
    while (alive(pid)) await new Promise((r) => setTimeout(r, 50));
  }, 60_000);
});
