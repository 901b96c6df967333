// A generated request's values are the harness's own (shown as sent, and where the answer echoes
// them), read as far as an output may show the request: its first MAX_SHOWN_TEXT characters.
import { describe, expect, it } from 'vitest';
import { recordedResponse, type Exchange } from '../lib/http/exchange.js';
import { responseText } from '../lib/reporting/exchange-text.js';
import { MAX_SHOWN_TEXT, Redactor } from '../lib/reporting/redact.js';

const generated = (requestBody: string, answer: string): Exchange => ({
  id: 'gen.1', title: 'generated login', origin: { source: 'generated', vouched: false, intent: 'invalid' },
  request: { method: 'POST', url: 'http://example.test/supportstateuser', headers: { 'content-type': 'application/json' }, body: requestBody },
  response: recordedResponse(200, { 'content-type': 'application/json; charset=utf-8' }, Buffer.from(answer)),
  startedAt: new Date(0).toISOString(), durationMs: 1,
});

describe('the values of a generated request longer than what is shown of it', () => {
  it('are its own when the shown part is within the body limits, though the rest nests past them', () => {
    // 70 levels of nesting after the first MAX_SHOWN_TEXT characters: the whole text passes the depth limit.
    const body = `{"userName":"Gen Value 7q","searchValues":"${'a'.repeat(MAX_SHOWN_TEXT)}","x":${'['.repeat(70)}${']'.repeat(70)}}`;
    const ex = generated(body, '{"userName":"Gen Value 7q"}');
    const r = new Redactor({ showPersonalData: false, secrets: [] });
    const scope = r.scope();
    scope.learnExchange(ex);
    r.learnFingerprints(ex);
    expect(responseText(ex, scope)).toContain('{"userName":"Gen Value 7q"}');
    expect(r.line('echoed: Gen Value 7q')).toBe('echoed: Gen Value 7q');
  });

  it('a value the target sent of its own beside them is masked as ever', () => {
    const ex = generated('{"userName":"Gen Value 7q"}', '{"userName":"Real Person-41"}');
    const scope = new Redactor({ showPersonalData: false, secrets: [] }).scope();
    scope.learnExchange(ex);
    expect(responseText(ex, scope)).toContain('{"userName":"«personal: string, 14 chars»"}');
  });
});
