// A --header value no HTTP client can send (a control character, a character past U+00FF) is bad
// input: exit 2 in one line naming the header and where in its value, never the value (a secret).
// It was taken, every request then failed to be sent, and the run exited 1 blaming the target.
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../lib/cli/config.js';
import { runCli } from './helpers/cli.js';

describe('--header with a value no header can hold', () => {
  it.each([
    ['X-Key: ab\u0001c', 3],
    ['X-Key: a\u007f', 2],
    ['X-Key: \u20ac100', 1],
    ['X-Key: a\u0000', 2],
  ])('%j is refused, naming the header and character %i', (header, at) => {
    const r = parseConfig(['--header', header], {});
    expect(r).toEqual({ ok: false, error: `--header X-Key has a control character or one past U+00FF, which no header value can hold, at character ${at} of its value` });
  });

  it.each(['X-Key: a\tb c', 'X-Key: caf\u00e9', 'X-Key: '])('%j is taken', (header) => {
    const r = parseConfig(['--header', header], {});
    expect(r.ok).toBe(true);
  });

  it('the CLI exits 2 in one line, quoting nothing of the value, before anything is sent', async () => {
    const run = await runCli(['--header', 'Authorization: Bearer s3cr\u0001t', '--report-dir', '/nonexistent/never-written', '--quiet']);
    expect([run.code, run.stdout, run.stderr]).toEqual([2, '', 'conformance: --header Authorization has a control character or one past U+00FF, which no header value can hold, at character 12 of its value\n']);
  });
});
