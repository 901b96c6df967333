// --legacy-url with --har sends each recorded request of the interface to both deployments. It sent
// the entry's header map: names lower-cased, a repeated field joined into one (two Cookie fields as
// `cookie: a=1, b=2`, which no client sends), in the map's order. Now it sends the fields as
// recorded: names as spelled, in order, repeats apart; the run's --header values win, sent after.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from './helpers/cli.js';
import { startRawTarget, type ParsedRequest, type RawTarget } from './helpers/raw-target.js';

const ANSWER = 'HTTP/1.1 200 OK\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: 2\r\n\r\n{}';
let legacy: RawTarget;
let candidate: RawTarget;
beforeAll(async () => { [legacy, candidate] = await Promise.all([startRawTarget(() => ANSWER), startRawTarget(() => ANSWER)]); });
afterAll(async () => { await Promise.all([legacy.close(), candidate.close()]); });

/** The fields of the recorded request a deployment got, less those the transport writes per connection. */
const replayedFields = (t: RawTarget): (readonly (readonly [string, string])[])[] => t.requests
  .filter((r: ParsedRequest) => r.fields.some(([k]) => k.toLowerCase() === 'x-trace'))
  .map((r) => r.fields.filter(([k]) => !['host', 'connection', 'content-length'].includes(k.toLowerCase())));

it('sends a HAR entry\'s header fields to both deployments as recorded: names as spelled, in order, repeats apart, a --header after them', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'differential-har-fields-'));
  const body = '{}';
  const recorded = [['Host', 'legacy.example'], ['Content-Type', 'application/json'], ['X-Trace', '1'], ['x-MiXed-Case', 'v'], ['X-Trace', '2'],
    ['Cookie', 'a=1'], ['X-Api-Key', 'recorded-key-value'], ['Cookie', 'b=2'], ['Content-Length', String(body.length)]] as const;
  const har = join(dir, 'recorded.har');
  writeFileSync(har, JSON.stringify({ log: { version: '1.2', entries: [{
    startedDateTime: '2026-11-25T09:00:00.000Z', time: 5,
    request: { method: 'POST', url: 'https://legacy.example/supportstateuser', headers: recorded.map(([name, value]) => ({ name, value })), postData: { mimeType: 'application/json', text: body } },
    response: { status: 0, headers: [], content: {} },
  }] } }));
  const r = await runCli(['--base-url', candidate.url, '--legacy-url', legacy.url, '--har', har, '--header', 'X-Api-Key: the-runs-own-key', '--report-dir', join(dir, 'out'), '--reports', 'summary', '--quiet']);
  expect(r.stderr).not.toMatch(/internal error/);
  const expected = [['Content-Type', 'application/json'], ['X-Trace', '1'], ['x-MiXed-Case', 'v'], ['X-Trace', '2'], ['Cookie', 'a=1'], ['Cookie', 'b=2'], ['x-api-key', 'the-runs-own-key']];
  // The legacy twice (before and after the candidate), the candidate once.
  expect(replayedFields(legacy)).toEqual([expected, expected]);
  expect(replayedFields(candidate)).toEqual([expected]);
}, 120_000);
