// A secret learned in one exchange and echoed encoded deep inside a long run of another's text. Each
// run was decoded in its first window only (4 096 characters of base64 or base32, 8 192 of hex, 12 288
// of a hex dump), so a secret past it was shown as sent. Every encoding the shown text is searched in
// (base64 whole, in groups of four, in lines; base32 whole or in groups; hex in one run or as a dump)
// is now read in windows over its whole length, and hex in one run is read as a document (it had been
// looked up only as one token exactly). A run holding nothing learned stays as sent. Base64 in groups
// was read one start group at a time, each reading a window: 80 000 groups holding a secret took
// 17 s; the characters it decodes are now linear in the text (base64GroupsDecoded counts them).
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { base64GroupsDecoded } from '../lib/reporting/redact.js';
import { learnedA } from './helpers/echo-exchanges.js';

const PASSWORD = 'Pw0rd-Hunter2-Qx7v';
const learned = () => learnedA('alice-long', PASSWORD, 'AbTok-9fQzLm2XyW7kR').scope();

/** `n` bytes the same at every run: SHA-256 in a chain (bytes of no text: a hash's, a key's). */
function noise(n: number, seed: string): Buffer {
  const out: Buffer[] = [];
  let block = createHash('sha256').update(seed).digest();
  for (let size = 0; size < n; size += block.length) { out.push(block); block = createHash('sha256').update(block).digest(); }
  return Buffer.concat(out).subarray(0, n);
}
/** `n` bytes of text: words of letters. */
const words = (n: number): Buffer => Buffer.from(noise(n, 'words').toString('hex').replace(/[0-9]/g, ' ').slice(0, n));

const base32 = (b: Buffer): string => {
  const A = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let [bits, value, out] = [0, 0, ''];
  for (const x of b) {
    value = ((value << 8) | x) & 0xffff;
    bits += 8;
    while (bits >= 5) { out += A[(value >>> (bits - 5)) & 31]; bits -= 5; }
  }
  if (bits) out += A[(value << (5 - bits)) & 31];
  return out.padEnd(Math.ceil(out.length / 8) * 8, '=');
};
const groupsOf = (s: string, n: number, by: string): string => (s.match(new RegExp(`.{1,${n}}`, 'g')) ?? []).join(by);

/** How each encoding writes bytes, and whether it is read only as text (base32, base64 lines). */
const ENCODINGS: Record<string, { write: (b: Buffer) => string; text: boolean }> = {
  'base64 in one run': { write: (b) => b.toString('base64'), text: false },
  'base64url in one run': { write: (b) => b.toString('base64url'), text: false },
  'base64 in groups of four': { write: (b) => groupsOf(b.toString('base64'), 4, ' '), text: false },
  'base64 in lines of 76': { write: (b) => groupsOf(b.toString('base64'), 76, '\n'), text: true },
  'base32 in capitals': { write: base32, text: true },
  'base32 in groups of four': { write: (b) => groupsOf(base32(b), 4, ' '), text: true },
  'hex in one run': { write: (b) => b.toString('hex'), text: false },
  'hex dump': { write: (b) => groupsOf(b.toString('hex'), 2, ' '), text: false },
};

describe('a learned secret deep inside a long encoded run', () => {
  for (const [name, { write, text }] of Object.entries(ENCODINGS)) {
    it(`${name}: the secret 20 000 bytes in is masked; the same run without it is shown exactly as sent`, () => {
      const before = text ? words(20_000) : noise(20_000, name);
      const holding = write(Buffer.concat([before, Buffer.from(` ${PASSWORD} `), text ? words(30) : noise(30, 'after')]));
      const shown = learned().text(holding);
      expect(shown).toMatch(/«secret: \d+ chars»/);
      // What is left of the run, read back, holds no piece of the secret.
      const kept = shown.split(/«secret: \d+ chars»/).join('\n');
      expect(kept.length).toBeLessThan(holding.length);
      expect(holding.includes(kept.split('\n')[0]!)).toBe(true);
      const plain = write(Buffer.concat([before, Buffer.from(' a plain value here '), text ? words(30) : noise(30, 'after')]));
      expect(learned().text(plain)).toBe(plain);
    });
  }

  it('hex of a short document holding the secret is masked (read as a document, not only as one token)', () => {
    const hex = Buffer.from(JSON.stringify({ note: 'as sent', credential: PASSWORD })).toString('hex');
    expect(learned().text(`dump ${hex} end`)).toBe(`dump «secret: ${hex.length} chars» end`);
    const other = Buffer.from(JSON.stringify({ note: 'as sent', credential: 'nothing learned' })).toString('hex');
    expect(learned().text(`dump ${other} end`)).toBe(`dump ${other} end`);
  });

  it('base64 groups of a hash with the secret past the first window: only the groups of the secret are masked', () => {
    const bytes = Buffer.concat([noise(15_000, 'hash'), Buffer.from(` ${PASSWORD} `), noise(300, 'tail')]);
    const holding = groupsOf(bytes.toString('base64'), 4, ' ');
    const shown = learned().text(holding);
    const [head, tail, more] = shown.split(/«secret: \d+ chars»/);
    expect(more).toBeUndefined();
    expect(holding.startsWith(head!) && holding.endsWith(tail!)).toBe(true);
    const masked = holding.slice(head!.length, holding.length - tail!.length);
    // The secret's groups and the few beside them that decode to text with them: under 60 characters.
    expect(masked.length).toBeLessThan(60);
    expect(Buffer.from(masked.replace(/ /g, ''), 'base64').toString('latin1')).toContain(PASSWORD);
  });

  for (const [where, at] of [['first', 0], ['middle', 50_000], ['last', 99_900]] as const) {
    it(`base64 groups of 100 000 bytes with the secret at the ${where}: decoding costs at most 8 characters per character of the text`, () => {
      const bytes = Buffer.concat([noise(at, 'a'), Buffer.from(` ${PASSWORD} `), noise(100_000 - at, 'b')]);
      const holding = groupsOf(bytes.toString('base64'), 4, ' ');
      const decoded = base64GroupsDecoded();
      expect(learned().text(holding)).toMatch(/«secret: \d+ chars»/);
      // One start group at a time, each reading a window of 1 024 groups, it was over 3 000.
      expect((base64GroupsDecoded() - decoded) / holding.length).toBeLessThan(8);
    });
  }
});

describe('base64 in one run past its first window, read as its first window is', () => {
  // A letters-only secret (whole groups: 12 bytes) after a hash whose last group decodes to text
  // ("xQz"), and before a group of text ("kWp"): fused to them, its words are no token of their own.
  const LETTERS = 'QmTrvXkLpWzH';
  const fused = (value: string): string => Buffer.concat([noise(15_000, 'hash'), Buffer.from(`xQz${value}kWp`), noise(300, 'tail')]).toString('base64');
  const knowing = (secret: string) => learnedA('alice-long', secret, 'AbTok-9fQzLm2XyW7kR').scope();

  it('a letters-only secret\'s base64 among a hash\'s 15 000 bytes in (groups of text around it): masked; a value of nothing learned there: shown exactly as sent', () => {
    const holding = fused(LETTERS);
    const shown = knowing(LETTERS).line(`echoed ${holding} back`);
    expect(shown).toMatch(/^echoed «secret: \d+ chars» back$/);
    const plain = fused('TmHqLxZvRkPw');
    expect(knowing(LETTERS).line(`echoed ${plain} back`)).toBe(`echoed ${plain} back`);
  });

  it('a document of 3k + 1 bytes ending with the secret 20 000 bytes in, written one character past whole groups (its stable spelling): masked; the same document of another value: shown exactly as sent', () => {
    const secret = 'Pw0rd-Hunter2-Qx7vZ';
    /** The base64 of `words` and then `value`, its last character (of two bits) left out. */
    const stem = (value: string): string => {
      let doc = `${words(20_000).toString('latin1')} ${value}`;
      while (Buffer.byteLength(doc) % 3 !== 1) doc = `w${doc}`;
      return Buffer.from(doc).toString('base64').replace(/=+$/, '').slice(0, -1);
    };
    const holding = stem(secret);
    expect(holding.length % 4).toBe(1);
    expect(knowing(secret).line(`echoed ${holding} back`)).toMatch(/^echoed «secret: \d+ chars» back$/);
    const plain = stem('Qw0rd-Hunter2-Qx7vZ');
    expect(knowing(secret).line(`echoed ${plain} back`)).toBe(`echoed ${plain} back`);
  });
});
