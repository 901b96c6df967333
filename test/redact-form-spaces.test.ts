// A value of several words echoed as a form or a URL query writes it (URLSearchParams, HTML forms: a
// space as "+") is still the value: masked there as where it is written with spaces, in its own
// exchange and in any other; a "+" that joins no learned words is left as it is.
import { describe, expect, it } from 'vitest';
import { Redactor } from '../lib/reporting/redact.js';

const PASSPHRASE = 'correct horse battery staple';
const CONFIGURED = 'open sesame now';
const TOKEN = 'Tok3nCanary91bd7f3a';
const learned = () => {
  const run = new Redactor({ showPersonalData: false, secrets: [CONFIGURED] });
  const scope = run.scope();
  scope.learn(JSON.stringify({ firstName: 'Jane', lastName: 'Doe', fullName: 'Jane Doe', address: '12 Main Street', apiKey: PASSPHRASE, hxToken: TOKEN }));
  return { run, scope, other: run.scope() };
};
const query = (values: Record<string, string>) => `/next?${new URLSearchParams(values).toString()}`;

describe('a value written with "+" for its spaces', () => {
  it('is masked in its own exchange, in another exchange\'s, and in a run-wide text', () => {
    const { run, scope, other } = learned();
    const url = query({ name: 'Jane Doe', at: '12 Main Street', key: PASSPHRASE, cfg: CONFIGURED });
    expect(url).toBe('/next?name=Jane+Doe&at=12+Main+Street&key=correct+horse+battery+staple&cfg=open+sesame+now');
    for (const [who, shown] of [['own', scope.text(url)], ['other', other.text(url)], ['run', run.line(url)]] as const) {
      for (const word of ['jane', 'doe', 'main', 'street', 'horse', 'battery', 'staple', 'sesame']) expect(shown.toLowerCase(), `${who}: ${shown}`).not.toContain(word);
      expect(shown, who).toMatch(/^\/next\?name=«[^»]+»&at=«[^»]+»&key=«[^»]+»&cfg=«[^»]+»$/);
    }
  });

  it('a learned token joined to another word by "+" is masked in another exchange', () => {
    const { other } = learned();
    expect(other.text(`id=x+${TOKEN}`)).toBe('id=x+«secret: 19 chars»');
  });

  it('a "+" that joins no learned words is left as it is', () => {
    const { scope, other } = learned();
    const text = '2026-11-01T00:00:00+02:00 a+b 1e+10 c++ Janet+Doerr Main+Streets';
    expect(scope.text(text)).toBe(text);
    expect(other.text(text)).toBe(text);
  });
});
