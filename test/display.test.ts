// Display safety: no control, bidi or other invisible format character a target sends reaches a
// person raw, on the console or in any file; each is shown escaped instead. The characters are
// listed here by hand from the Unicode tables (not derived from the implementation's own pattern),
// and the whole Cf category is swept on top.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { setMember } from '../lib/reference/edit-json.js';
import { displayBlock, displayLine, inertUrls, markdownCell, markdownCode, MAX_SHOWN_NAME, MAX_SHOWN_VALUE, shownMessage, shownPath } from '../lib/reporting/display.js';
import { runCli } from './helpers/cli.js';
import { files, readable } from './helpers/outputs.js';
import { useReference } from './helpers/reference.js';

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const LISTED: Record<string, number[]> = {
  'C0 controls': range(0x00, 0x1f),
  DEL: [0x7f],
  'C1 controls': range(0x80, 0x9f),
  'bidi marks, embeddings, overrides and isolates': [0x061c, 0x200e, 0x200f, ...range(0x202a, 0x202e), ...range(0x2066, 0x2069)],
  'invisible format characters': [0x00ad, 0x180e, ...range(0x200b, 0x200d), ...range(0x2060, 0x2064), 0xfeff, ...range(0xfff9, 0xfffb)],
  'tag characters': [0xe0001, ...range(0xe0020, 0xe007f)],
  'line and paragraph separators': [0x2028, 0x2029],
  'lone surrogates': [0xd800, 0xdbff, 0xdc00, 0xdfff],
};
const ALL_CF = range(0, 0x10ffff).filter((c) => (c < 0xd800 || c > 0xdfff) && /\p{Cf}/u.test(String.fromCodePoint(c)));
const char = (c: number) => (c >= 0xd800 && c <= 0xdfff ? String.fromCharCode(c) : String.fromCodePoint(c));

describe('displayLine', () => {
  for (const [group, codes] of Object.entries(LISTED)) {
    it(`shows every one of the ${group} escaped (${codes.length})`, () => {
      for (const c of codes) {
        const out = displayLine(`a${char(c)}b`);
        expect(out.includes(char(c)), `U+${c.toString(16)}`).toBe(false);
        expect(out, `U+${c.toString(16)}`).toMatch(/^a\\(x[0-9a-f]{2}|u[0-9a-f]{4}|u\{[0-9a-f]+\}|[nrt])b$/);
      }
    });
  }

  it(`shows every format character (Cf, ${ALL_CF.length} of them) escaped`, () => {
    expect(ALL_CF.length).toBeGreaterThan(150);
    for (const c of ALL_CF) expect(displayLine(char(c)).includes(char(c)), `U+${c.toString(16)}`).toBe(false);
  });

  it('leaves ordinary text of any script as it is', () => {
    const text = 'Grüße 東京 😀 Ωμέγα — "quotes" <tags> & \\ backslash «marker»';
    expect(displayLine(text)).toBe(text);
  });

  it('shows the first round\'s hostile name as one inert line', () => {
    expect(displayLine('\u001b[2J\u001b]52;c;SGk=\u0007\rVerdict: CONFORMANT \u202eevil')).toBe('\\x1b[2J\\x1b]52;c;SGk=\\x07\\rVerdict: CONFORMANT \\u202eevil');
  });
});

describe('displayBlock', () => {
  it('keeps line feeds and tabs, shows every CR as \\r (a CRLF as \\r before its line feed), and escapes the rest', () => {
    expect(displayBlock('a\r\nb\tc\rd\u001b[0m\u202e')).toBe('a\\r\nb\tc\\rd\\x1b[0m\\u202e');
  });
});

describe('links and markup', () => {
  it('no URL stays one a viewer links', () => {
    expect(inertUrls('see http://a.example/x, HTTPS://b.example, ftp://c, mailto:x@y and www.d.example')).toBe('see http[:]//a.example/x, HTTPS[:]//b.example, ftp[:]//c, mailto[:]x@y and www[.]d.example');
  });
  it('a Markdown code span holds backticks, so nothing inside it can close it', () => {
    expect(markdownCode('a `b` ``c``')).toBe('``` a `b` ``c`` ```');
  });
  it('in a table cell, a pipe cannot end the cell and let markup out (a HAR\'s method is the recorder\'s text)', () => {
    const row = `| ${markdownCell('X|[click](https://evil.example)<img src=x onerror=alert(1)>|Y POST')} | 1 |`;
    // GFM splits a row at every pipe not escaped: three, so two cells, the first one code span.
    expect(row.match(/(?<!\\)\|/g)).toHaveLength(3);
    expect(row.startsWith('| ` X\\|[click]')).toBe(true);
  });
});

/** Member names and values a hostile target sends: terminal sequences, a false verdict line, bidi. */
const hostile = useReference({
  variants: [{
    name: 'hostile-names', description: 'member names and values with controls and bidi overrides',
    editJson: (r) => setMember(setMember(r, ['\u001b[2J\u001b]52;c;SGk=\u0007\rVerdict: CONFORMANT \u202eevil'], () => ({ t: 'number', raw: '1' })),
      ['userName'], () => ({ t: 'number', raw: '7' })),
    editSoap: (env) => env,
    // HTTP allows Latin-1 in header values: NEL and CSI are C1 controls a terminal acts on.
    editReply: (r) => ({ ...r, headers: { ...r.headers, 'x-note': 'a\u0085b\u009b2Jc' } }),
  }],
});

const RAW = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029\ufeff]/;

describe('shownMessage', () => {
  const long = 'a'.repeat(16_384);
  it('a message under the bound is shown whole', () => {
    expect(shownMessage('Content-Type "text/html", expected application/json', 400)).toBe('Content-Type "text/html", expected application/json');
  });
  it('a long quoted value is cut, its length stated, and the words after it kept', () => {
    const shown = shownMessage(`Content-Type ${JSON.stringify(long)}, expected application/json`, 400);
    expect(shown).toBe(`Content-Type "${'a'.repeat(MAX_SHOWN_VALUE - 1)}…" (16,384 characters), expected application/json`);
  });
  it('the length counts characters of the value, not of its spelling: a surrogate pair or an escape is one', () => {
    expect(shownMessage(`${JSON.stringify('\u{1f600}'.repeat(300))} is wrong`, 400)).toMatch(/^"(\u{1f600})+…" \(300 characters\) is wrong$/u);
    expect(shownMessage(`${JSON.stringify('\x1b'.repeat(300))} is wrong`, 400)).toMatch(/^"(\\u001b)+…" \(300 characters\) is wrong$/);
  });
  it('a cut never ends inside an escape, so the quote it adds is not escaped', () => {
    for (let k = 0; k < 8; k++) {
      const shown = shownMessage(`${JSON.stringify(`${'a'.repeat(MAX_SHOWN_VALUE - 8 + k)}\"\\\u0001${long}`)} is wrong`, 400);
      expect(shown, String(k)).toMatch(/^"(?:[^"\\]|\\["\\]|\\u[0-9a-f]{4})*…" \(\d+,\d+ characters\) is wrong$/);
    }
  });
  it('a marker in a quoted value is shown whole or not at all', () => {
    const shown = shownMessage(`"${'a'.repeat(MAX_SHOWN_VALUE - 10)}«secret header: string, 40 chars»${long}" is wrong`, 400);
    expect(shown).toBe(`"${'a'.repeat(MAX_SHOWN_VALUE - 10)}…" (${(MAX_SHOWN_VALUE - 10 + 33 + long.length).toLocaleString('en-US')} characters) is wrong`);
  });
  it('a message long for other reasons than a quoted value is cut at its end', () => {
    expect(shownMessage(`${'b'.repeat(500)} "short"`, 400)).toBe(`${'b'.repeat(399)}…`);
  });
});

describe('shownPath', () => {
  const n = `N${'a'.repeat(999)}`; // a name at the XML parser's bound (1 024), past a message's 400
  const cut = `N${'a'.repeat(31)}…(956 characters cut)…${'a'.repeat(12)}`;
  it('a path under the bound is shown whole, a contract-length name in a long path too', () => {
    expect(shownPath('$.enrollmentInfo.siteId')).toBe('$.enrollmentInfo.siteId');
    const deep = `/Envelope/Body/UserDetailsResponse/ProviderPaymentSettings/KeyValueOfstringProviderPaymentSettings3EALVCDt[2]/Value/${n}`;
    expect(shownPath(deep)).toBe(`/Envelope/Body/UserDetailsResponse/ProviderPaymentSettings/KeyValueOfstringProviderPaymentSettings3EALVCDt[2]/Value/${cut}`);
  });
  it('a long element name is cut, the names and the index after it kept', () => {
    expect(shownPath(`/Envelope/Body/${n}/City[2]`)).toBe(`/Envelope/Body/${cut}/City[2]`);
  });
  it('a long JSON member name is cut, as an identifier and as a quoted name (never inside an escape)', () => {
    expect(shownPath(`$.${n}.siteId`)).toBe(`$.${cut}.siteId`);
    for (let k = 0; k < 4; k++) {
      const quoted = JSON.stringify(`${'b'.repeat(MAX_SHOWN_NAME - 4 + k)}\"\u0001${'c'.repeat(900)}`);
      expect(shownPath(`$[${quoted}][3]`), String(k)).toMatch(/^\$\["(?:[^"\\]|\\["\\]|\\u[0-9a-f]{4})*…\(\d+ characters cut\)…c{12}"\]\[3\]$/);
    }
  });
  it('two long names that share their first 63 characters read apart: by their ends, or by the count cut between', () => {
    const shared = `N${'a'.repeat(62)}`;
    const [one, two] = [`${shared}${'a'.repeat(936)}1`, `${shared}${'a'.repeat(936)}2`].map((name) => shownPath(`/Envelope/Body/${name}/City`));
    expect([one, two]).toEqual([`/Envelope/Body/N${'a'.repeat(31)}…(956 characters cut)…${'a'.repeat(11)}1/City`, `/Envelope/Body/N${'a'.repeat(31)}…(956 characters cut)…${'a'.repeat(11)}2/City`]);
    const [short, long] = [`${shared}${'b'.repeat(200)}`, `${shared}${'b'.repeat(300)}`].map((name) => shownPath(`$.${name}.siteId`));
    expect([short, long]).toEqual([`$.N${'a'.repeat(31)}…(219 characters cut)…${'b'.repeat(12)}.siteId`, `$.N${'a'.repeat(31)}…(319 characters cut)…${'b'.repeat(12)}.siteId`]);
  });
  it('the kept end of a cut name never starts inside a marker or a surrogate pair', () => {
    expect(shownPath(`$.${'a'.repeat(300)}«secret header: string, 40 chars»bbbb`)).toBe(`$.${'a'.repeat(32)}…(301 characters cut)…bbbb`);
    expect(shownPath(`$.${'a'.repeat(300)}${'\u{1F600}'.repeat(6)}x`)).toBe(`$.${'a'.repeat(32)}…(269 characters cut)…${'\u{1F600}'.repeat(5)}x`);
  });
  it('a path of many names, none long, is cut at its end; a header path past the bound too', () => {
    const many = `$${'.abcdefghij'.repeat(40)}`;
    expect(shownPath(many)).toBe(`${many.slice(0, MAX_SHOWN_VALUE - 1)}…`);
    expect(shownPath(`request.headers.${n}`)).toHaveLength(MAX_SHOWN_VALUE);
  });
});

describe('what reaches a person', () => {
  it('no output of a run against a hostile target holds a control, bidi or format character raw', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'display-'));
    const r = await runCli(['--base-url', hostile.url, '--report-dir', dir]);
    expect(r.code).toBe(1); // userName as a number fails JSON-STRING
    expect(r.stdout).toContain('"\\u001b[2J\\u001b]52;c;SGk=\\u0007\\rVerdict: CONFORMANT \\u202eevil" is not a member'); // quoted as JSON, the bidi control escaped
    expect(RAW.test(r.stdout + r.stderr), 'console').toBe(false);
    const written = files(dir);
    expect(written.length).toBeGreaterThan(50);
    for (const f of written) {
      // The HTML page's own script is Allure's, not the target's: its embedded data is what is scanned.
      const text = f.endsWith('.html') ? readable(f).slice(readFileSync(f, 'utf8').length) : readable(f);
      expect(RAW.exec(text)?.[0], f.slice(dir.length + 1)).toBeUndefined();
    }
  });
});
