// A body is shown as its bytes were received, or the output says how it is not: a byte-order mark and
// a CRLF's carriage return are kept (escaped, as every output shows U+FEFF and CR), and bytes that are
// not UTF-8 are named where they start.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { recordedResponse, type Exchange } from '../lib/http/exchange.js';
import { published } from '../lib/reporting/boundary.js';
import { requestText, responseText } from '../lib/reporting/exchange-text.js';
import { Redactor } from '../lib/reporting/redact.js';
import { FAULTS } from '../lib/reference/variants.js';
import { LEAN, runCli } from './helpers/cli.js';
import { useReference } from './helpers/reference.js';

const run = () => new Redactor({ showPersonalData: false, secrets: [] });
function exchange(body: Buffer, size = body.length, request: Partial<Exchange['request']> = {}): Exchange {
  return {
    id: 'har.1', title: 'recorded login', origin: { source: 'har', vouched: false },
    request: { method: 'POST', url: 'http://example.test/supportstateuser', headers: { 'content-type': 'application/json' }, body: '{}', ...request },
    response: { ...recordedResponse(200, { 'content-type': 'application/json' }, body), size },
    startedAt: new Date(0).toISOString(), durationMs: 1,
  };
}
/** What every report shows of an exchange's answer and request (the boundary's pass included). */
const shown = (ex: Exchange) => {
  const scope = run().scope();
  scope.learnExchange(ex);
  return published({ request: requestText(ex, scope), response: responseText(ex, scope) }, scope);
};
const bodyOf = (text: string) => text.slice(text.indexOf('\n\n') + 2);

describe('a body shown as received', () => {
  it('keeps a leading byte-order mark, shown as \\ufeff', () => {
    expect(bodyOf(shown(exchange(Buffer.from('\uFEFF{"a":1}'))).response)).toBe('\\ufeff{"a":1}');
  });

  it('says where bytes that are not UTF-8 start (a Latin-1 é at byte 6), and nothing of a UTF-8 body', () => {
    const latin1 = Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xe9]), Buffer.from('"}')]);
    expect(bodyOf(shown(exchange(latin1)).response)).toBe('{"a":"\uFFFD"}\n… (the bytes are not UTF-8 from byte 6: each ill-formed sequence is shown as U+FFFD)');
    expect(bodyOf(shown(exchange(Buffer.from('{"a":"é\uFFFD"}'))).response)).toBe('{"a":"é\uFFFD"}');
  });

  it('shows the carriage return of each CRLF line end as \\r before the line feed, so CRLF and LF bodies differ', () => {
    expect(bodyOf(shown(exchange(Buffer.from('<a>\r\n  <b/>\r\n</a>'))).response)).toBe('<a>\\r\n  <b/>\\r\n</a>');
    expect(bodyOf(shown(exchange(Buffer.from('<a>\n  <b/>\n</a>'))).response)).toBe('<a>\n  <b/>\n</a>');
  });

  it('a kept head cut inside a character is not called ill-formed: only the bytes received beyond are said', () => {
    const head = Buffer.from('{"a":"é').subarray(0, 7); // the first byte of é only
    expect(bodyOf(shown(exchange(head, 100)).response)).toBe('{"a":"\n… (100 bytes received; the rest not shown)'); // its last word left out, as ever
  });

  it('says so of a request body that was not UTF-8', () => {
    expect(bodyOf(shown(exchange(Buffer.from('{}'), 2, { body: '{"a":"\uFFFD"}', notUtf8At: 6 })).request)).toBe('{"a":"\uFFFD"}\n… (the bytes are not UTF-8 from byte 6: each ill-formed sequence is shown as U+FFFD)');
  });
});

describe('a run against a target that starts its JSON with a byte-order mark', () => {
  const target = useReference({ variants: [FAULTS.find((f) => f.name === 'json-bom')!] });
  it('fails JSON-NO-BOM, and exchanges.json shows the mark at the start of each JSON answer it judged', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'evidence-bytes-'));
    const r = await runCli([...LEAN, '--base-url', target.url, '--report-dir', dir, '--quiet']);
    expect(r.code).toBe(1);
    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as { checks: { id: string; status: string; exchanges: string[] }[] };
    const check = summary.checks.find((c) => c.id === 'JSON-NO-BOM')!;
    expect(check.status).toBe('failed');
    const exchanges = JSON.parse(readFileSync(join(dir, 'exchanges.json'), 'utf8')) as { id: string; response: string }[];
    const judged = exchanges.filter((e) => check.exchanges.includes(e.id) && /content-type: application\/json/.test(e.response));
    expect(judged.length).toBeGreaterThan(0);
    for (const e of judged) expect(bodyOf(e.response), e.id).toMatch(/^\\ufeff\{/);
  }, 120_000);
});
