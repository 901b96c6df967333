// A phone number or a postal code is written compact or in groups (+46 70 123 45 67, 753 20, with
// spaces or dashes): a reader reads either as the same number. Learned in one form and shown in
// another, it was shown whole: its groups are words under four characters, and its compact form one
// word its groups were never looked up as. Now a grouped value is learned with its digits joined, and a
// text is also read with the spaces and dashes between digits left out. Not covered (stated): a number
// written with another dialling prefix (0046 for +46) or a trunk digit in brackets (+46 (0)70): other
// digits. Other numbers in groups are shown as sent, also where two of their groups are two of the
// learned number's (its groups are not learned as words; a part of the number is no secret of its own).
import { describe, expect, it } from 'vitest';
import { Redactor } from '../lib/reporting/redact.js';
import { exchange } from './helpers/echo-exchanges.js';

/** A login answer holding `phone` and `postal` (personal), learned as a run learns it. */
function learned(phone: string, postal: string): Redactor {
  const r = new Redactor({ showPersonalData: false, secrets: [] });
  const answer = { userName: 'u1', phoneNumber: phone, postalCode: postal };
  r.learnFingerprints(exchange('{"userName":"u1"}', {}, JSON.stringify(answer)), answer);
  return r;
}

const PHONES = ['+46701234567', '+46 70 123 45 67', '+46 70 1234567', '+46-70-123-45-67', '+46\u00a070\u00a0123\u00a045\u00a067'];
const POSTALS = ['75320', '753 20', '753-20'];
/** A text showing `shown`, with the part that must be masked, as one finding's line. */
const line = (shown: string) => `expected an integer, got "${shown}" in a message`;

describe('a phone number and a postal code learned in one form, shown in another', () => {
  for (const learnedPhone of [PHONES[0]!, PHONES[1]!]) {
    for (const learnedPostal of [POSTALS[0]!, POSTALS[1]!]) {
      it(`learned as ${learnedPhone} and ${learnedPostal}: every other form is masked`, () => {
        const r = learned(learnedPhone, learnedPostal);
        for (const shown of [...PHONES, ...POSTALS]) {
          const out = r.line(line(shown));
          expect([shown, out.includes(shown), out.includes('«')]).toEqual([shown, false, true]);
        }
      });
    }
  }

  // A dot or a slash between digits joins a decimal, an IP address, a version or a path: other numbers
  // than the digits joined (an independent review found 100.01 and 10.0.0.1 masked beside a learned 10001).
  it('shows a decimal, an IP address, a version and a path whose digits join to a learned number as sent', () => {
    const r = learned(PHONES[0]!, '10001');
    for (const other of ['100.01', '10.0.0.1', '1.0.0.0.1', '/orders/100/01', '10.0.0.1:8080']) expect(r.line(line(other))).toBe(line(other));
    expect(r.text(JSON.stringify({ amount: 100.01, ip: '10.0.0.1' }))).toBe('{"amount":100.01,"ip":"10.0.0.1"}');
  });

  // Two groups of a learned number in a row (the country and network code +46 70, the last groups
  // 45 67) begin or end many another number: they had been masked in any text, as two words of a name are.
  it('shows other numbers in groups as sent, those sharing two groups with the learned one too', () => {
    const r = learned(PHONES[1]!, POSTALS[1]!);
    for (const other of ['+47 22 999 88 77', '753 21', '10 20 30 40 50 60', '2026-11-28', '1.000.000', '+46 70 999 88 77', '+44 20 7946 45 67', 'pages 123 45']) {
      expect(r.line(line(other))).toBe(line(other));
    }
  });
});
