// A secret learned in one exchange and echoed in another joined to a word by a colon (user:password,
// a scheme's prefix, key:value in a log line) stands in one token of the shown text, which the
// fingerprint lookup met whole and missed: each part between colons is looked up too. A colon-joined
// text holding nothing learned is shown as sent.
import { describe, expect, it } from 'vitest';
import { recordedResponse, type Exchange } from '../lib/http/exchange.js';
import { Redactor } from '../lib/reporting/redact.js';

const PASSWORD = 'Pw0rd-Hunter2-Qx7v';

function learned(): Redactor {
  const ex: Exchange = {
    id: 'case-1.login', title: 'login', origin: { source: 'case', vouched: true, case: 1 },
    request: { method: 'POST', url: 'http://example.test/supportstateuser', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ userName: 'alice', password: PASSWORD }) },
    response: recordedResponse(200, { 'content-type': 'application/json' }, Buffer.from('{}')),
    startedAt: new Date(0).toISOString(), durationMs: 1,
  };
  const r = new Redactor({ showPersonalData: false, secrets: [] });
  r.learnFingerprints(ex, {});
  return r;
}

describe('a learned secret joined to other words by colons, in another exchange', () => {
  it('is masked in a body, a line and a header, the words beside it shown as sent', () => {
    const other = learned().scope();
    const mark = `«secret: ${PASSWORD.length} chars»`;
    expect(other.text(JSON.stringify({ echo: `carol:${PASSWORD}` }))).toBe(JSON.stringify({ echo: `carol:${mark}` }));
    expect(other.line(`login carol:${PASSWORD}:extra failed`)).toBe(`login carol:${mark}:extra failed`);
    expect(other.header('x-echo', `pw:${PASSWORD}`)).toBe(`pw:${mark}`);
  });

  it('a colon-joined text holding nothing learned is shown as sent', () => {
    const other = learned().scope();
    for (const t of ['carol:dave', 'urn:example:animal:ferret:nose', 'Pw0rd-Hunter3-Qx7v:carol']) expect(other.line(`value ${t} here`)).toBe(`value ${t} here`);
  });
});
