// Judge chooses the checks of an exchange from its kind once per kind (kinds.ts onKind), and still
// asks per exchange every check whose appliesTo reads more than the kind: CONTENT-CODING reads the
// answer's Content-Encoding, which two exchanges of one kind may differ in.
import { describe, expect, it } from 'vitest';
import { CATALOGUE } from '../lib/checks/catalogue.js';
import { ExchangeView } from '../lib/checks/exchange-view.js';
import { readsKindOnly } from '../lib/checks/kinds.js';
import { classify } from '../lib/contract/classify.js';
import { Judge } from '../lib/engine/run.js';
import type { Exchange } from '../lib/http/exchange.js';

const settings = { namespaces: {} as never };
const body = Buffer.from('{"confirmed":true}');
const confirm = (id: string, headers: Record<string, string>): Exchange => ({
  id, title: id, origin: { source: 'case', vouched: true, case: 1 }, startedAt: '', durationMs: 0,
  request: { method: 'POST', url: 'http://svc.test/user/confirmemail', headers: { 'content-type': 'application/json' }, body: '{}' },
  response: { status: 200, headers: { 'content-type': 'application/json', ...headers }, body, size: body.length, sha256: '' },
});
const judgedBy = (judge: Judge, ex: Exchange) => judge.judgedHere(ex).looks.map(([i]) => judge.tallies[i]!.check.id);

describe('Judge: checks chosen per kind', () => {
  it('asks CONTENT-CODING on each exchange of a kind: it judges the coded answer after a plain one of the same kind', () => {
    const plain = confirm('plain', {});
    const coded = confirm('coded', { 'content-encoding': 'gzip' });
    expect(classify(plain.request)).toBe(classify(coded.request)); // one kind object for both
    const judge = new Judge(CATALOGUE, settings);
    expect(judgedBy(judge, plain)).not.toContain('CONTENT-CODING');
    expect(judgedBy(judge, coded)).toContain('CONTENT-CODING');
    expect(judge.fold(coded, judge.judgedHere(coded)).map(([c]) => c.id)).toContain('CONTENT-CODING');
  });

  it('judges an exchange with the checks whose appliesTo says so, in catalogue order, the first time and again', () => {
    const judge = new Judge(CATALOGUE, settings);
    const ex = confirm('again', {});
    const asked = CATALOGUE.filter((c) => c.appliesTo(new ExchangeView(ex, settings))).map((c) => c.id);
    expect(asked).toContain('JSON-VALUE-MEMBERS');
    expect(judgedBy(judge, ex)).toEqual(asked);
    expect(judgedBy(judge, ex)).toEqual(asked);
  });

  it('marks the route, format and record rules as reading the kind alone, and no request, robustness or coding check', () => {
    const marked = (id: string) => readsKindOnly(CATALOGUE.find((c) => c.id === id)!.appliesTo);
    expect(['ROUTE-LOGIN-POST', 'ROUTE-SOAP-POST', 'FORMAT-SOAP11-EXTENSION', 'JSONP-CALLBACK', 'SOAP-ENVELOPE-NS', 'JSON-VALUE-MEMBERS', 'JSON-MAP'].map(marked))
      .toEqual([true, true, true, true, true, true, true]);
    expect(marked('CONTENT-CODING')).toBe(false);
    expect(CATALOGUE.filter((c) => c.area === 'Requests' || c.area === 'Robustness').some((c) => readsKindOnly(c.appliesTo))).toBe(false);
  });
});
