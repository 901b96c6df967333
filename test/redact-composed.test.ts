// A personal value echoed with its accents written as combining marks (Unicode NFD: "e" + U+0308 for
// "ë", as macOS file names and some libraries write text) is the same text (canonical equivalence),
// and is masked as its composed spelling is; learned decomposed, it masks the composed spelling too.
// It was shown whole: the marks split its words. A value that differs by its letters (no accents) is
// another value, shown as sent.
import { describe, expect, it } from 'vitest';
import { recordedResponse, type Exchange } from '../lib/http/exchange.js';
import { Redactor } from '../lib/reporting/redact.js';
import { canonical } from '../lib/reporting/spellings.js';

const NAME = 'Zoëlle Ångström';
const nfd = (s: string): string => s.normalize('NFD');

/** A login answer holding `name` as the user's first name (personal), learned as a run learns it. */
function learned(name: string): Redactor {
  const r = new Redactor({ showPersonalData: false, secrets: [] });
  const answer = JSON.stringify({ userName: 'u1', firstName: name });
  const ex: Exchange = {
    id: 'case-1.login', title: 'login', origin: { source: 'case', vouched: true, case: 1 },
    request: { method: 'POST', url: 'http://example.test/supportstateuser', headers: { 'content-type': 'application/json' }, body: '{"userName":"u1"}' },
    response: recordedResponse(200, { 'content-type': 'application/json' }, Buffer.from(answer)),
    startedAt: new Date(0).toISOString(), durationMs: 1,
  };
  r.learnFingerprints(ex, JSON.parse(answer) as Record<string, string>);
  return r;
}

describe('a personal value in composed and decomposed spellings', () => {
  it('the decomposed spelling differs from the composed one by three combining marks', () => {
    expect(nfd(NAME)).not.toBe(NAME);
    expect(nfd(NAME).length).toBe(NAME.length + 3);
  });

  it('learned composed, masks its decomposed spelling in another text, in any case', () => {
    const r = learned(NAME);
    for (const shown of [nfd(NAME), nfd(NAME.toUpperCase())]) expect(r.text(`note: ${shown} called`)).toBe('note: «secret: words» called');
    expect(r.text(`note: ${NAME} called`)).toBe('note: «secret: words» called');
  });

  it('learned decomposed, masks its composed spelling', () => {
    expect(learned(nfd(NAME)).text(`note: ${NAME} called`)).toBe('note: «secret: words» called');
  });

  it('shows values that differ by their letters as sent', () => {
    const r = learned(NAME);
    for (const other of ['Zoelle Angstrom', nfd('Zoëlla Ångströms'), 'Zoëlle']) expect(r.text(`note: ${other} called`)).toBe(`note: ${other} called`);
  });

  it('maps each composed character back to its whole cluster in the original', () => {
    const c = canonical(`x ${nfd('Zoë')}`);
    expect(c.text).toBe('x zoë');
    expect([...c.from]).toEqual([0, 1, 2, 3, 4]);
    expect([...c.to]).toEqual([1, 2, 3, 4, 6]);
  });

  it('learned in any spelling, masks that same spelling: decomposed Turkish and Greek capitals, whose lower case composes otherwise than they do', () => {
    // canonicalValue() composed before folding while canonical() folds before composing: I + U+0307
    // (İ decomposed) learned did not match itself, and "İlker" was shown in clear.
    for (const name of [nfd('İlker Çağlayan'), 'I\u0307lker Çağlayan', 'Ι\u0342ων Σπύρου']) {
      expect(learned(name).text(`note: ${name} called`)).toBe('note: «secret: words» called');
    }
  });

  // İ folds to itself (its lower case is two characters) and I + U+0307 to i + U+0307; Σ at a word's
  // end lower-cases to ς in a whole value, to σ a character at a time; a Korean name written
  // decomposed (macOS) is jamo, no combining marks; a soft hyphen or a grapheme joiner is invisible,
  // left out of a text but had been kept in the value learned. Each was shown in some spelling.
  const SPELLED: Record<string, string> = {
    'İ composed and decomposed': 'İlker Çağlayan',
    'a final sigma': 'ΟΔΥΣΣΕΥΣ Παππάς',
    'Hangul syllables and their jamo': '홍길동 김철수',
    'a soft hyphen': 'Ste\u00adphanie Müller',
    'a grapheme joiner between a letter and its accent': 'Zoe\u034f\u0301 Lamarque',
  };
  for (const [what, name] of Object.entries(SPELLED)) {
    it(`learned in any spelling, masks every other: ${what}`, () => {
      const spellings = [name, name.normalize('NFC'), nfd(name), name.replace(/[\u00ad\u034f]/g, ''), name.toLowerCase(), name.toUpperCase(), nfd(name.toUpperCase())];
      for (const learnedAs of spellings) {
        const r = learned(learnedAs);
        expect(spellings.map((shown) => r.text(`note: ${shown} called`))).toEqual(spellings.map(() => 'note: «secret: words» called'));
      }
    });
  }
});

// A reader reads 𝐉𝐨𝐡𝐚𝐧𝐧𝐚, Ⓙⓞⓗⓐⓝⓝⓐ and ᴶᵒʰᵃⁿⁿᵃ as Johanna (Unicode compatibility equivalence, UAX #15:
// NFKC); full-width forms were read so, these were shown whole. Letters spaced out and look-alike
// letters of other scripts (UTS #39 confusables) are other texts, shown as sent.
describe('a learned value echoed in compatibility forms', () => {
  const mapped = (s: string, upper: number, lower: number, digit?: number) => [...s].map((ch) => {
    const k = ch.charCodeAt(0);
    if (k >= 65 && k <= 90) return String.fromCodePoint(upper + k - 65);
    if (k >= 97 && k <= 122) return String.fromCodePoint(lower + k - 97);
    if (digit !== undefined && k >= 48 && k <= 57) return String.fromCodePoint(digit + k - 48);
    return ch;
  }).join('');
  const FORMS: Record<string, (s: string) => string> = {
    'mathematical bold letters': (s) => mapped(s, 0x1d400, 0x1d41a, 0x1d7ce),
    'mathematical sans-serif letters': (s) => mapped(s, 0x1d5a0, 0x1d5ba, 0x1d7e2),
    'circled letters': (s) => mapped(s, 0x24b6, 0x24d0),
    'the ligature ﬁ': (s) => s.replace('fi', '\ufb01'),
  };
  const NAME = 'Josefine Berglund';

  for (const [form, spell] of Object.entries(FORMS)) {
    it(`masks a personal value spelled with ${form}`, () => {
      expect(spell(NAME)).not.toBe(NAME);
      expect(learned(NAME).text(`note: ${spell(NAME)} called`)).toBe('note: «secret: words» called');
    });
  }

  it('shows other text in those forms as sent', () => {
    const other = `${FORMS['mathematical bold letters']!('Hello World')} ${FORMS['circled letters']!('Greetings')} \ufb01ne`;
    expect(learned(NAME).text(`note: ${other}`)).toBe(`note: ${other}`);
  });

  // Half-width katakana writes a voiced or semi-voiced syllable as two characters (ｶﾞ for ガ, ﾊﾟ for
  // パ): NFKC reads the pair as the one syllable. Read a character at a time, the mark stood apart
  // (カ + U+3099) and a name learned in full-width katakana was shown whole in half-width.
  it('masks a katakana name learned in full width and shown in half width with voiced marks', () => {
    const name = 'ガブリエル パズドゥグ';
    const half = 'ｶﾞﾌﾞﾘｴﾙ ﾊﾟｽﾞﾄﾞｩｸﾞ';
    expect(half.normalize('NFKC')).toBe(name);
    expect(learned(name).text(`note: ${half} called`)).toBe('note: «secret: words» called');
    expect(learned(name).text('note: ｶﾌﾘｴﾙ called')).toBe('note: ｶﾌﾘｴﾙ called');
  });
});

// Characters a reader does not see, after each letter: Unicode's default-ignorable code points (the
// supplementary variation selectors, tag characters, musical format controls) and the interlinear
// annotation marks were kept by the canonical reading (its list stopped at U+FEFF, and an astral one
// was tested as two halves), so such a value was shown whole. A generic combining mark that composes
// with nothing (a stroke, a line below or above, an enclosing circle) is drawn over its letter and
// read as the letter. An accent on every letter makes other letters (ó is not o), shown as sent, as
// a name without its accents is.
describe('a learned value with a character after each letter', () => {
  const NAME = 'Johanna Berglund';
  const after = (mark: string) => NAME.replace(/[A-Za-z]/g, (ch) => `${ch}${mark}`);
  const HIDDEN: Record<string, string> = {
    'a supplementary variation selector (U+E0101)': '\u{e0101}',
    'a tag space (U+E0020)': '\u{e0020}',
    'a tag letter (U+E0041)': '\u{e0041}',
    'a musical format control (U+1D175)': '\u{1d175}',
    'an interlinear annotation terminator (U+FFFB)': '\ufffb',
    'a long stroke overlay (U+0336)': '\u0336',
    'a low line (U+0332)': '\u0332',
    'an overline (U+0305)': '\u0305',
    'an enclosing circle (U+20DD)': '\u20dd',
  };
  for (const [what, mark] of Object.entries(HIDDEN)) {
    it(`masks it with ${what} after each letter, learned plain or so written`, () => {
      expect(learned(NAME).text(`note: ${after(mark)} called`)).toBe('note: «secret: words» called');
      expect(learned(after(mark)).text(`note: ${NAME} called`)).toBe('note: «secret: words» called');
    });
  }

  it('shows a word that differs by a stress or tone mark that composes with nothing as sent: another word', () => {
    for (const [learnedAs, other] of [['за́мок', 'замо́к'], ['за́мок', 'замок'], ['Ọ̀ládélé Adé', 'Ọládélé Adé']]) {
      expect(learned(learnedAs!).text(`note: ${other} called`), other).toBe(`note: ${other} called`);
    }
  });

  it('shows it with an accent that composes on every letter as sent: other letters', () => {
    const accented = 'Jóhánná Bérglúnd';
    expect(learned(NAME).text(`note: ${accented} called`)).toBe(`note: ${accented} called`);
  });
});
