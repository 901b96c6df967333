// A generated value longer than an output shows (an oversized body's mebibyte of x sits in userName)
// is the harness's own at any length: the target's echo of it, whole or cut where the kept answer
// ends, is hidden by name where it stands but never learned, and a finding quoting it shows it as
// sent. A piece of a probe's sample value is not learned in any spelling either.
import { describe, expect, it } from 'vitest';
import { jsonText, OVERSIZED_BODY_BYTES } from '../lib/engine/generated-requests.js';
import { KEPT_BODY_BYTES } from '../lib/engine/run.js';
import { recordedResponse, type Exchange } from '../lib/http/exchange.js';
import { MAX_SHOWN_TEXT, Redactor } from '../lib/reporting/redact.js';

const policy = { showPersonalData: false, secrets: [] };
/** Longer than what an output shows of the request, and than the answer a report keeps. */
const V = `Gen ${'x'.repeat(OVERSIZED_BODY_BYTES)} End`;

function generated(answer: string, keptBytes = Infinity): Exchange {
  // Members before it, as a generated record has: the request's first MAX_SHOWN_TEXT characters hold
  // less of it than the kept answer does.
  const { text, ownValues } = jsonText({ searchValues: 'q'.repeat(64), userName: V });
  return {
    id: 'gen.login.1', title: 'gen', origin: { source: 'generated', vouched: false, intent: 'invalid', ...(ownValues ? { ownValues } : {}) },
    request: { method: 'POST', url: 'http://svc.test/supportstateuser', headers: { 'content-type': 'application/json' }, body: text },
    response: recordedResponse(200, { 'content-type': 'application/json' }, Buffer.from(answer).subarray(0, keptBytes)),
    startedAt: new Date(0).toISOString(), durationMs: 1,
  };
}

describe('a generated value longer than an output shows, echoed by the target', () => {
  it('is the harness\'s own: a finding quoting it, a member or a message echoing it show it as sent', () => {
    expect(V.length).toBeGreaterThan(MAX_SHOWN_TEXT);
    const ex = generated(JSON.stringify({ displayName: V, company: 'c' }));
    const r = new Redactor(policy);
    r.learnFingerprints(ex);
    const scope = r.scope();
    scope.learnExchange(ex);
    expect(scope.isOwn(V)).toBe(true);
    expect(scope.value(V, 'personal')).toBe(V);
    expect(scope.value(V, undefined)).toBe(V);
    expect(scope.line(`actual ${V}`)).toBe(`actual ${V}`);
    expect(r.line(`elsewhere ${V}`)).toBe(`elsewhere ${V}`);
  });

  it('cut where the kept answer ends, it is hidden there by name and not learned', () => {
    const ex = generated(JSON.stringify({ displayName: V }), KEPT_BODY_BYTES);
    const r = new Redactor(policy);
    r.learnFingerprints(ex);
    const scope = r.scope();
    scope.learnExchange(ex);
    const piece = ex.response!.body.toString('utf8').slice('{"displayName":"'.length);
    expect(scope.text(ex.response!.body.toString('utf8'))).toBe(`{"displayName":"«personal: string, ${piece.length} chars»"`);
    for (const red of [scope, r]) expect(red.line(`echoed ${piece}`)).toBe(`echoed ${piece}`);
  });

  it('a value the target adds of its own beside the echo is masked', () => {
    const ex = generated(JSON.stringify({ displayName: 'Real Person-41', company: V }));
    const scope = new Redactor(policy).scope();
    scope.learnExchange(ex);
    expect(scope.line('seen Real Person-41')).toBe('seen «personal: string, 14 chars»');
  });
});

describe('a piece of a probe\'s sample value', () => {
  it('answered URL-encoded in a form, is not learned: its spelling is shown as sent elsewhere', () => {
    const scope = new Redactor(policy).scope();
    const answer = 'displayName=sample%2DuserNa&x=1';
    scope.learn(answer);
    expect(scope.text(answer)).toBe('displayName=%C2%ABpersonal%3A%20string%2C%2013%20chars%C2%BB&x=1');
    expect(scope.line('sent sample%2DuserNa and sample-userNa')).toBe('sent sample%2DuserNa and sample-userNa');
  });
});
