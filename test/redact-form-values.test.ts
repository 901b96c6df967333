// A form or query string quoted inside a JSON string: the form walker learns exactly each value, as
// the string's reader reads it, never the string's closing quote and what follows it. Learned whole,
// the bare value is masked in every spelling; nothing after it is masked.
import { describe, expect, it } from 'vitest';
import { sensitivityOfName } from '../lib/contract/sensitivity.js';
import { formRanges } from '../lib/reporting/form-ranges.js';
import { Redactor } from '../lib/reporting/redact.js';

const SECRET = 'Quokka7Zephyr';
const scope = () => new Redactor({ showPersonalData: false, secrets: [] }).scope();
const learned = (text: string) => formRanges(text, sensitivityOfName).map((r) => r.values);

describe('a form value inside a JSON string', () => {
  it('the last value of a quoted form is learned without the closing quote and brace, and masked in its base64 spelling', () => {
    const body = `{"form":"a=1&password=${SECRET}"}`;
    expect(learned(body)).toEqual([[SECRET]]);
    const r = scope();
    r.learn(body);
    expect(r.text(body)).toBe('{"form":"a=1&password=«credential: string, 13 chars»"}');
    const base64 = Buffer.from(SECRET).toString('base64');
    const out = r.line(`echoed ${SECRET} and ${base64}`);
    expect(out).toMatch(/^echoed «credential: string, 13 chars» and «credential: string, 13 chars»/);
    expect(out).not.toContain(base64.slice(0, 16));
  });

  it('a query string\'s value followed by other members: the members after it are shown exactly', () => {
    const body = `{"q":"x?token=${SECRET}","n":1,"state":"LA"}`;
    expect(learned(body)).toEqual([[SECRET]]);
    const r = scope();
    r.learn(body);
    expect(r.text(body)).toBe('{"q":"x?token=«credential: string, 13 chars»","n":1,"state":"LA"}');
  });

  it('a JSON string that is a form from its first character is walked too', () => {
    const body = `{"body":"password=${SECRET}"}`;
    expect(learned(body)).toEqual([[SECRET]]);
    const r = scope();
    r.learn(body);
    expect(r.text(body)).toBe('{"body":"password=«credential: string, 13 chars»"}');
    expect(r.text(`"password=${SECRET}"`)).toBe('"password=«credential: string, 13 chars»"');
  });

  it('a value with escapes ends where the reader reads a space, an & or the closing quote', () => {
    expect(learned('{"m":"a=1&password=Quo\\"kka\\n7 x"}')).toEqual([['Quo"kka', 'Quo\\"kka']]);
    expect(learned(`{"m":"password=${SECRET}\\u0026b=2"}`)).toEqual([[SECRET]]);
  });

  it('outside a JSON text a quote is part of the value: nothing of a secret is left out', () => {
    expect(learned(`a=1&password=${SECRET}"x&b=2`)).toEqual([[`${SECRET}"x`]]);
    expect(learned(`{"cut":"a=1&password=${SECRET}"x`)).toEqual([[`${SECRET}"x`]]);
  });
});
