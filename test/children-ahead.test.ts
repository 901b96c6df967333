// The children started before their input exists (lib/child-ahead.ts): the Allure CLI (html.ts
// loadAllureAhead) and the presentation (vitest-run.ts presentAhead). A run that starts one and then
// needs it not (the presentation failed, the run ended) neither waits for it nor leaves it behind.
// Using them is covered wherever a run writes allure-results and report.html (report-files.test.ts,
// package.test.ts): every CLI run that writes them starts both ahead.
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

describe.each([
  ['the Allure CLI', ['lib', 'reporting', 'html.ts'], 'loadAllureAhead'],
  ['the presentation child', ['lib', 'cli', 'vitest-run.ts'], 'presentAhead'],
])('%s loaded ahead and never used', (_what, file, start) => {
  it('does not keep the process that started it open, and ends once that process has', async () => {
    const script = `const { register } = await import('tsx/esm/api'); register();
      const m = await import(${JSON.stringify(pathToFileURL(fromRoot(...file)).href)});
      process.stdout.write(String(m[${JSON.stringify(start)}]()));`;
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
