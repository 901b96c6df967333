// A request whose body went past the cap is shown with a marker where its body was, and replay.sh
// does not replay it: a curl without the body would send another request (and a finding "replayed"
// on it would be about that other request).
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LEAN, runCli } from './helpers/cli.js';

const work = mkdtempSync(join(tmpdir(), 'replay-left-out-'));

describe('--har with a request body past the cap and a failing answer', () => {
  it('exchanges.json marks the body left out, and replay.sh says the check is not replayed, naming why', async () => {
    const file = join(work, 'big.har');
    const body = `{"userName":"${'a'.repeat(1536 * 1024)}"}`;
    writeFileSync(file, JSON.stringify({ log: { version: '1.2', creator: { name: 't', version: '1' }, entries: [{
      startedDateTime: '2026-01-01T00:00:00.000Z', time: 1,
      request: { method: 'POST', url: 'http://h/supportstateuser', httpVersion: 'HTTP/1.1', headers: [{ name: 'Content-Type', value: 'application/json' }], postData: { mimeType: 'application/json', text: body } },
      response: { status: 200, statusText: 'OK', httpVersion: 'HTTP/1.1', headers: [{ name: 'Content-Type', value: 'application/json' }], content: { size: 2, mimeType: 'application/json', text: '{}' } },
    }] } }));
    const dir = join(work, 'reports');
    const run = await runCli([...LEAN, '--max-body-mib', '1', '--report-dir', dir, '--har', file]);
    expect(run.code, run.stderr).toBe(1); // the answer {} is no user-details record
    const exchanges = JSON.parse(readFileSync(join(dir, 'exchanges.json'), 'utf8')) as { id: string; request: string; curl: string }[] | { exchanges: { id: string; request: string; curl: string }[] };
    const [ex] = Array.isArray(exchanges) ? exchanges : exchanges.exchanges;
    expect(ex!.request.endsWith('\n\n«request body past the body cap: left out»')).toBe(true);
    const replay = readFileSync(join(dir, 'replay.sh'), 'utf8');
    expect(replay).not.toMatch(/^status=/m);
    expect(replay).toMatch(/^echo '[A-Z-]+ \(MUST\) har\.1'': not replayed: its request body went past the body cap and was left out of the run'$/m);
  });
});
