// The run-wide set of learned secrets (issue 24): a table of fixed size that never grows with the
// number of accounts, one fingerprint per learned token (its hex and reversed spellings are found by
// decoding the output's tokens, not stored), and exact lookups for everything learned before its bound.
import { describe, expect, it } from 'vitest';
import { recordedResponse, type Exchange } from '../lib/http/exchange.js';
import { FingerprintSet } from '../lib/reporting/fingerprints.js';
import { Redactor } from '../lib/reporting/redact.js';

function exchange(body: string): Exchange {
  return {
    id: 'case-1.login', title: 'login', origin: { source: 'case', vouched: true, case: 1 },
    request: { method: 'POST', url: 'http://example.test/supportstateuser', headers: { 'content-type': 'application/json' }, body: '{}' },
    response: recordedResponse(200, { 'content-type': 'application/json' }, Buffer.from(body)),
    startedAt: new Date(0).toISOString(), durationMs: 1,
  };
}

const TOKEN = 'hxToken-7XHMMv4Y39HNgRsomdqJmpvm';
const hex = (s: string) => Buffer.from(s, 'utf8').toString('hex');
const reversed = (s: string) => [...s].reverse().join('');

describe('the fingerprint table', () => {
  it('holds the same bytes after its first value as when full: it never grows', () => {
    const set = new FingerprintSet(3000);
    expect(set.bytes).toBe(0);
    set.add('first-value');
    const first = set.bytes;
    expect(first).toBe(set.maxBytes);
    for (let i = 0; set.size < 3000; i++) set.add(`value-${i}`);
    expect(set.bytes).toBe(first);
    expect(set.full).toBe(false);
    expect(set.add('one-too-many')).toBe(false);
    expect(set.full).toBe(true);
    expect(set.bytes).toBe(first);
  });

  it('finds every value it took, and none it did not, among 3000', () => {
    const set = new FingerprintSet(3000);
    for (let i = 0; i < 3000; i++) set.add(`token-${i}-x`);
    for (let i = 0; i < 3000; i++) expect(set.has(`token-${i}-x`)).toBe(true);
    let false_ = 0;
    for (let i = 0; i < 3000; i++) if (set.has(`other-${i}-y`)) false_++;
    expect(false_).toBe(0);
  });
});

describe('a long learned token', () => {
  it('costs one fingerprint, yet is masked written as learned, in hex, in upper-case hex and reversed', () => {
    const r = new Redactor({ showPersonalData: false, secrets: [] });
    r.learnFingerprints(exchange(`{"hxToken":"${TOKEN}"}`), { hxToken: TOKEN });
    // The table's one growing count: the token alone, not also its hex and reversed spellings.
    expect((r as unknown as { shared: { fingerprints: FingerprintSet } }).shared.fingerprints.size).toBe(1);
    const other = r.scope();
    for (const spelling of [TOKEN, hex(TOKEN), hex(TOKEN).toUpperCase(), reversed(TOKEN)]) {
      expect(other.line(`seen ${spelling} here`)).toBe(`seen «secret: ${spelling.length} chars» here`);
    }
  });

  it('leaves hex and reversed tokens of values it never learned', () => {
    const r = new Redactor({ showPersonalData: false, secrets: [] });
    r.learnFingerprints(exchange(`{"hxToken":"${TOKEN}"}`), { hxToken: TOKEN });
    const text = `seen ${hex('hxToken-something-else')} ${reversed('hxToken-something-else')} here`;
    expect(r.scope().line(text)).toBe(text);
  });
});
