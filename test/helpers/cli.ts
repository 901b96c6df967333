// Runs the conformance CLI as a child process, as CI does: through bin/run.mjs, so the compiled
// build when it is current (npm test builds first) and the TypeScript source when it is not.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface CliRun { code: number; stdout: string; stderr: string }

export const runCli = (args: readonly string[], env: Record<string, string> = {}): Promise<CliRun> => runProgram('cli/main', args, env);

/** Any of the harness's programs (bin/run.mjs <area/program>). */
export function runProgram(program: string, args: readonly string[], env: Record<string, string> = {}): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['bin/run.mjs', program, ...args], {
      cwd: ROOT, env: { ...process.env, BASE_URL: '', ...env }, timeout: 200_000, maxBuffer: 16 * 1024 * 1024,
    }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
    });
  });
}
