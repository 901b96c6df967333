// A refused setting is quoted on stderr: its value came from the user or the environment, and a
// BASE_URL holding C1 controls (U+009B, a one-character CSI; U+009D, OSC) or a bidi override reached
// the terminal raw (JSON.stringify quotes escape C0 only). Every line a program writes of its own on
// stderr now shows them escaped, as the reports do.
import { describe, expect, it } from 'vitest';
import { runCli, runProgram } from './helpers/cli.js';

const HOSTILE = 'x\u009b2J\u009d52;c;ZXZpbA==\u009c\u202egnp.exe\u001b[31m';
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe('a refused setting quoted on stderr', () => {
  it('shows C1 controls, bidi overrides and ESC escaped, for BASE_URL, --base-url and the reference\'s options', async () => {
    const byEnv = await runCli([], { BASE_URL: HOSTILE });
    const byFlag = await runCli([`--base-url=${HOSTILE}`]);
    const reference = await runProgram('cli/reference', [`--port=${HOSTILE}`]);
    for (const r of [byEnv, byFlag, reference]) {
      expect(r.code).toBe(2);
      expect(r.stderr).not.toMatch(RAW);
      expect(r.stderr).toContain('\\x9b2J\\x9d52;c;ZXZpbA==\\x9c\\u202egnp.exe');
    }
  }, 60_000);
});
