// Enum names in both directions: the spec spells each value one way, for a request (2.2) as for an
// answer (2.1), so a request holding systemCode "unspecified" fails REQ-JSON-TYPES as an answer
// holding it fails JSON-ENUM-CASE, by one rule and one stated interpretation; the server side stays
// lenient, as the platform is: the reference accepts the name in any case.
import { describe, expect, it } from 'vitest';
import { checkById } from '../lib/checks/catalogue.js';
import { ExchangeView } from '../lib/checks/exchange-view.js';
import { isSkip } from '../lib/checks/check.js';
import { DEFAULT_NAMESPACES } from '../lib/contract/namespaces.js';
import { confirmEmail, login } from '../lib/contract/operations.js';
import { PROBE } from '../lib/engine/probes.js';
import { recordedResponse, type Exchange } from '../lib/http/exchange.js';
import { bindJsonRequest } from '../lib/reference/json-endpoint.js';
import { changed, goodExchanges, judged } from './helpers/exchanges.js';

const TYPES = checkById.get('REQ-JSON-TYPES')!;
const CASE = checkById.get('JSON-ENUM-CASE')!;

/** A client's confirm request as a recording holds it, answered 200. */
function confirm(body: string): ExchangeView {
  const ex: Exchange = {
    id: 'har.1', title: 'x', origin: { source: 'har', vouched: false }, startedAt: '', durationMs: 0,
    request: { method: 'POST', url: 'http://svc.test/user/confirmemail', headers: { 'content-type': 'application/json' }, body },
    response: recordedResponse(200, { 'content-type': 'application/json' }, Buffer.from('{"userName":"a"}')),
  };
  return new ExchangeView(ex, { namespaces: DEFAULT_NAMESPACES });
}
const requestFindings = (systemCode: string) => {
  const look = TYPES.judge(confirm(JSON.stringify({ recoveryToken: 't', systemCode })));
  if (isSkip(look)) throw new Error(look.skip);
  return look.map((f) => [f.path, f.message]);
};

describe('an enum name in another letter case: the same rule in a request and in an answer', () => {
  it.each(['unspecified', 'UNSPECIFIED', 'unSpecified'])('a request with systemCode %s fails REQ-JSON-TYPES, naming the spelling the spec shows', (v) => {
    expect(requestFindings(v)).toEqual([['$.systemCode', `${JSON.stringify(v)}: differs from Unspecified only by letter case`]]);
  });
  it('a request with systemCode Unspecified, or a name the spec does not show (the value set is open, 2.4), passes REQ-JSON-TYPES', () => {
    expect(requestFindings('Unspecified')).toEqual([]);
    expect(requestFindings('Provider')).toEqual([]);
  });
  it('an answer with enrollmentInfo.systemCode "unspecified" fails JSON-ENUM-CASE for the same reason', () => {
    const L = PROBE.post(login);
    const body = (b: string) => b.replace(/"systemCode":"Unspecified"/, '"systemCode":"unspecified"');
    const result = judged(changed(goodExchanges(), L, { body }).values(), [CASE]).get(CASE.id)!;
    expect(result.status).toBe('fail');
    expect(result.examples.map((f) => [f.path, f.message])).toContainEqual(['$.enrollmentInfo.systemCode', '"unspecified" (a string): differs from Unspecified only by letter case']);
  });
  it('both checks state the reading as an interpretation, with its sources: one spelling in 2.1 and 2.2, .NET\'s case-insensitive read observed', () => {
    for (const c of [TYPES, CASE]) {
      expect(c.interpretation, c.id).toMatch(/Interpretation: the spec gives each enum value in one spelling, the same words for a request \(2\.2\) and an answer \(2\.1/);
      expect(c.interpretation, c.id).toContain('probes.enumNameReadIgnoringCase');
      expect(c.interpretation, c.id).toContain('RFC 8259 8.3');
    }
    expect(TYPES.interpretation).toContain('JSON-ENUM-CASE');
    expect(CASE.interpretation).toContain('REQ-JSON-TYPES');
  });
});

describe('the reference, as the platform, reads an enum name in any letter case', () => {
  it.each(['Unspecified', 'unspecified', 'UNSPECIFIED'])('binds a ConfirmEmailRequest with systemCode %s', (v) => {
    const bound = bindJsonRequest(confirmEmail, { method: 'POST', headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify({ systemCode: v })) });
    expect(bound).toEqual({ dto: { systemCode: v } });
  });
});
