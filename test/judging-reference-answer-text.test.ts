// The judging reference's reports show its answer as the client got it: the reason phrase, and every
// field Node wrote (Date, Connection, Keep-Alive), in order and as spelled. They had shown the reply's
// own fields alone, under a bare "HTTP 400".
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { startJudgingReference } from '../lib/cli/judging-reference.js';
import { rawExchange } from './helpers/raw-target.js';

it('a client\'s exchange kept in the reports shows the answer\'s head exactly as the client received it', async () => {
  const r = await startJudgingReference({ reportDir: mkdtempSync(join(tmpdir(), 'judging-reference-answer-text-')), reports: new Set(['summary']), print: () => undefined });
  try {
    // No Content-Type: a client check fails, so the exchange is kept as evidence.
    const body = '{"userName":"jdoe.support"}';
    const got = await rawExchange(r.url, `POST /supportstateuser HTTP/1.1\r\nHost: judging.test\r\nConnection: close\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
    const head = got.slice(0, got.indexOf('\r\n\r\n')).split('\r\n');
    const { report } = await r.stop();
    const kept = report.exchanges.find((e) => e.id.startsWith('client.'));
    expect(kept).toBeDefined();
    const shown = kept!.response.slice(0, kept!.response.indexOf('\n\n')).split('\n');
    expect(head.some((l) => /^Date: /.test(l)) && head.some((l) => /^Connection: /i.test(l))).toBe(true);
    expect(shown).toEqual([head[0]!.replace(/^HTTP\/1\.1/, 'HTTP'), ...head.slice(1)]);
  } finally {
    await r.close();
  }
});
