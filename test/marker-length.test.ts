// A marker states the length of what it hides. Matches of learned values that overlap (a value found
// again and again in a longer run of the same character, two secrets that share an end) are joined
// into one marker: it states the joined length, not that of the longest match
// (--generate 1000 --seed 1: culture's 343 x were shown as «personal: string, 316 chars», the length
// of impersonatedName's value).
import { describe, expect, it } from 'vitest';
import { recordedResponse, type Exchange } from '../lib/http/exchange.js';
import { responseText } from '../lib/reporting/exchange-text.js';
import { Redactor } from '../lib/reporting/redact.js';
import { MARKER } from '../lib/reporting/sensitive-ranges.js';

const probe = (answer: string): Exchange => ({
  id: 'login.post', title: 'login', origin: { source: 'probe', vouched: true },
  request: { method: 'POST', url: 'http://svc.test/supportstateuser', headers: { 'content-type': 'application/json' }, body: '{"userName":"sample-userName"}' },
  response: recordedResponse(200, { 'content-type': 'application/json; charset=utf-8' }, Buffer.from(answer)),
  startedAt: new Date(0).toISOString(), durationMs: 1,
});

const shown = (answer: string): string => {
  const scope = new Redactor({ showPersonalData: false, secrets: [] }).scope();
  const ex = probe(answer);
  scope.learnExchange(ex);
  return responseText(ex, scope);
};

describe('a marker over matches of learned values that overlap', () => {
  it('states the length of the whole run it hides: 343, not the 316 of the value found in it', () => {
    const out = shown(JSON.stringify({ impersonatedName: 'x'.repeat(316), culture: 'x'.repeat(343) }));
    expect(out).toContain('{"impersonatedName":"«personal: string, 316 chars»","culture":"«personal: string, 343 chars»"}');
    expect(out).not.toContain('xxxx');
  });

  it('of two secrets that share an end, states their joined length (20), and hides both', () => {
    const out = shown(JSON.stringify({ displayName: 'Quokka7Zephyr', lastName: 'ZephyrWombat9', culture: 'see Quokka7ZephyrWombat9 here' }));
    expect(out).toContain('"culture":"see «personal: string, 20 chars» here"');
    for (const s of ['Quokka', 'Wombat', 'Zephyr']) expect(out).not.toContain(s);
  });

  it('counts what a reader reads: a run written in JSON escapes is as long as its characters', () => {
    const escaped = '\\u0078'.repeat(343);
    const out = shown(`{"impersonatedName":"${'x'.repeat(316)}","culture":"${escaped}"}`);
    expect(out).toContain('"culture":"«personal: string, 343 chars»"');
  });

  it('is a marker as the Redactor writes one (never searched again), and a single match keeps its own', () => {
    const out = shown(JSON.stringify({ impersonatedName: 'x'.repeat(316), culture: `a ${'x'.repeat(316)} b`, company: 'x'.repeat(320) }));
    expect(out).toContain('"culture":"a «personal: string, 316 chars» b"');
    expect(out).toContain('"company":"«personal: string, 320 chars»"');
    expect([...out.matchAll(MARKER)].map((m) => m[0])).toContain('«personal: string, 320 chars»');
  });
});

describe('a marker over a learned word found elsewhere (a fingerprint)', () => {
  it('counts characters, not UTF-16 code units: five astral letters are 5 chars', () => {
    const r = new Redactor({ showPersonalData: false, secrets: [] });
    r.scope().learn('{"displayName":"𝐀𝐁𝐂𝐃𝐄"}');
    expect(r.line('say 𝐀𝐁𝐂𝐃𝐄 here')).toBe('say «secret: 5 chars» here');
  });
});
