// A request whose body is bytes that are not UTF-8 (a client of the proxy or of the judging
// reference) is held as text with U+FFFD for the bad bytes; a curl of that text sends other bytes
// (and, under the recorded Content-Length, a cut body), so replay.sh would "replay" another request.
// It lists such a check as not replayed, saying why.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startJudgingReference } from '../lib/cli/judging-reference.js';

describe('replay.sh and a request body that is not UTF-8', () => {
  it('lists the failed check as not replayed, naming why, and sends nothing for it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'replay-not-utf8-'));
    const judging = await startJudgingReference({ reportDir: dir, print: () => undefined, reports: new Set(['summary']) });
    try {
      const body = Buffer.concat([Buffer.from('{"x":"caf'), Buffer.from([0xe9]), Buffer.from('"}')]);
      const r = await fetch(`${judging.url}/supportstateuser`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      expect(r.status).toBe(400);
      await r.text();
    } finally {
      await judging.stop();
    }
    const replay = readFileSync(join(dir, 'replay.sh'), 'utf8');
    expect(replay).not.toMatch(/^status=/m);
    expect(replay).toContain("echo 'REQ-JSON-BODY (MUST) client.1'': not replayed: its request body was bytes that are not UTF-8, which the run did not keep as sent'\n");
    const exchanges = JSON.parse(readFileSync(join(dir, 'exchanges.json'), 'utf8')) as { curl: string }[] | { exchanges: { curl: string }[] };
    const [ex] = Array.isArray(exchanges) ? exchanges : exchanges.exchanges;
    expect(ex!.curl).toContain("--data-binary '«request body of bytes that are not UTF-8: not kept as sent»'");
  });
});
