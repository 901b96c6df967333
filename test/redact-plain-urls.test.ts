// learnFingerprints skips the structure walk of a request URL in which it found nothing before
// (redact.ts, plainUrls): every URL that holds a sensitive parameter is still learned, whatever plain
// URLs, with the same path or the same text but for its query, came before it.
import { describe, expect, it } from 'vitest';
import { recordedResponse, type Exchange } from '../lib/http/exchange.js';
import { Redactor } from '../lib/reporting/redact.js';

const exchange = (url: string): Exchange => ({
  id: 'case-1.login', title: 'an account', origin: { source: 'case', vouched: true, case: 1 },
  request: { method: 'POST', url, headers: { 'content-type': 'application/json' }, body: '{}' },
  response: recordedResponse(200, { 'content-type': 'application/json; charset=utf-8' }, Buffer.from('{}')),
  startedAt: new Date(0).toISOString(), durationMs: 1,
});

const TOKEN = 'Zq7vK2mP9xW4tR8s';
const BASE = 'http://example.test/supportstateuser';

describe('request URLs learned once plain', () => {
  it('learns a token in a query string after the same path was seen plain, again and again', () => {
    const r = new Redactor({ showPersonalData: false, secrets: [] });
    for (let i = 0; i < 3; i++) r.learnFingerprints(exchange(BASE));
    expect(r.scope().text(`echo ${TOKEN}`)).toContain(TOKEN); // nothing learned yet
    r.learnFingerprints(exchange(`${BASE}?apiKey=${TOKEN}`));
    const out = r.scope().text(`echo ${TOKEN}`);
    expect(out).not.toContain(TOKEN);
    expect(out).toContain('«secret');
  });

  it('learns each token of a URL with a sensitive parameter every time it is seen', () => {
    const r = new Redactor({ showPersonalData: false, secrets: [] });
    const other = 'Yh3nB6cL1dF5gJ0k';
    r.learnFingerprints(exchange(`${BASE}?apiKey=${TOKEN}`));
    r.learnFingerprints(exchange(`${BASE}?apiKey=${TOKEN}`));
    r.learnFingerprints(exchange(`${BASE}?apiKey=${other}`));
    for (const t of [TOKEN, other]) expect(r.scope().text(`echo ${t}`)).not.toContain(t);
  });

  it('learns what a plain URL seen by another redactor would not tell this one (each run its own memory)', () => {
    const first = new Redactor({ showPersonalData: false, secrets: [] });
    first.learnFingerprints(exchange(`${BASE}?apiKey=${TOKEN}`));
    const second = new Redactor({ showPersonalData: false, secrets: [] });
    second.learnFingerprints(exchange(BASE));
    expect(second.scope().text(`echo ${TOKEN}`)).toContain(TOKEN);
    expect(first.scope().text(`echo ${TOKEN}`)).not.toContain(TOKEN);
  });
});
