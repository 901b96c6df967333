// The encodings a program or a person undoes that a learned secret may be echoed in
// (test/fingerprint-encodings.test.ts, test/cut-spellings.test.ts), and how to read a piece of each.
const b64 = (s: string | Buffer): string => Buffer.from(s).toString('base64');
const hexBytes = (s: string): string[] => [...Buffer.from(s)].map((b) => b.toString(16).padStart(2, '0'));
const codes = (s: string): string[] => [...s].map((ch) => ch.codePointAt(0)!.toString(16));
const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
/** RFC 4648 base32, padded or not. */
export const base32 = (s: string, pad = true): string => {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const b of Buffer.from(s)) {
    value = ((value << 8) | b) & 0xffff;
    bits += 8;
    for (; bits >= 5; bits -= 5) out += BASE32[(value >>> (bits - 5)) & 31];
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return pad ? out.padEnd(Math.ceil(out.length / 8) * 8, '=') : out;
};
const fullWidth = (s: string): string => s.replace(/[!-~]/g, (ch) => String.fromCharCode(ch.charCodeAt(0) + 0xfee0));
export const groups = (s: string): string => s.match(/.{1,4}/g)!.join(' ');
/** A command whose UTF-16LE bytes, in base64, hold a secret. */
const command = (secret: string): string => `Invoke-Login -Secret ${secret}`;

/** Each spelling of `secret`, by name. */
export const spellings = (secret: string): Record<string, string> => ({
  'hex bytes with spaces': hexBytes(secret).join(' '),
  'hex bytes in capitals with colons': hexBytes(secret).join(':').toUpperCase(),
  'hex bytes in capitals with dashes (.NET BitConverter.ToString)': hexBytes(secret).join('-').toUpperCase(),
  'hex bytes as \\x escapes': hexBytes(secret).map((h) => `\\x${h}`).join(''),
  'CSS escapes': codes(secret).map((h) => `\\${h} `).join(''),
  'JavaScript \\u escapes': codes(secret).map((h) => `\\u${h.padStart(4, '0')}`).join(''),
  'JavaScript \\u{} escapes': codes(secret).map((h) => `\\u{${h}}`).join(''),
  'full-width forms': fullWidth(secret),
  'base32, padded': base32(secret),
  'base32, unpadded': base32(secret, false),
  'base32 in lower case, padded': base32(secret).toLowerCase(),
  'base32 in lower case, unpadded': base32(secret, false).toLowerCase(),
  'base32 in groups of four': groups(base32(secret)),
  'base32 in groups of four with dashes, unpadded': groups(base32(secret, false)).replace(/ /g, '-'),
  'base32 in lower-case groups of four': groups(base32(secret)).toLowerCase(),
  'base64 of its UTF-16LE bytes': b64(Buffer.from(secret, 'utf16le')),
  'base64 of a UTF-16LE command holding it': b64(Buffer.from(command(secret), 'utf16le')),
  'base64 of its UTF-16BE bytes': b64(Buffer.from(secret, 'utf16le').swap16()),
  "base64 of its UTF-16BE bytes after a byte-order mark (Java's \"UTF-16\")": b64(Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(secret, 'utf16le').swap16()])),
  'base64 in groups of four': groups(b64(secret)),
});

/** Spellings canonical() reads, for the cuts: HTML character references and percent-encoding. */
export const canonicalSpellings = (secret: string): Record<string, string> => ({
  'HTML character references': codes(secret).map((h) => `&#x${h};`).join(''),
  'percent-encoded bytes': hexBytes(secret).map((h) => `%${h.toUpperCase()}`).join(''),
});

/** Spellings of a longer text holding a secret: base64 in MIME lines (76 characters), the secret across the first break. */
export const lineSpellings = (secret: string): Record<string, string> => ({
  'MIME base64 lines of a text holding it': b64(`${'x'.repeat(50)} ${secret} ${'y'.repeat(70)}`).match(/.{1,76}/g)!.join('\r\n'),
});

const bytesText = (bytes: number[]): string => Buffer.from(bytes).toString('utf8');
const hexPairs = (s: string): number[] => [...s.matchAll(/[0-9a-f]{2}/gi)].map((m) => parseInt(m[0], 16));
const fromBase32 = (s: string): string => {
  const bytes: number[] = [];
  let bits = 0;
  let value = 0;
  for (const ch of s.toUpperCase()) {
    const v = BASE32.indexOf(ch);
    if (v < 0) break;
    value = ((value << 5) | v) & 0xfff;
    bits += 5;
    if (bits >= 8) { bits -= 8; bytes.push((value >>> bits) & 0xff); }
  }
  return bytesText(bytes);
};
const fromBase64 = (s: string, coding: BufferEncoding): string => Buffer.from(s.replace(/\s+/g, ''), 'base64').toString(coding);
const fromBase64Be = (s: string): string => { const b = Buffer.from(s.replace(/\s+/g, ''), 'base64'); return Buffer.from(b.subarray(0, b.length - (b.length % 2))).swap16().toString('utf16le'); };
const points = (s: string, pattern: RegExp): string => [...s.matchAll(pattern)].map((m) => String.fromCodePoint(parseInt(m[1]!, 16))).join('');

/** What a reader decodes of a piece (the start) of each spelling, by the spelling's name. */
export const decoders: Readonly<Record<string, (piece: string) => string>> = {
  'hex bytes with spaces': (p) => bytesText(hexPairs(p.replace(/ /g, ''))),
  'hex bytes in capitals with colons': (p) => bytesText(hexPairs(p.replace(/:/g, ''))),
  'hex bytes in capitals with dashes (.NET BitConverter.ToString)': (p) => bytesText(hexPairs(p.replace(/-/g, ''))),
  'hex bytes as \\x escapes': (p) => bytesText(hexPairs(p.replace(/\\x/g, ''))),
  'CSS escapes': (p) => points(p, /\\([0-9a-f]{1,6}) ?/gi),
  'JavaScript \\u escapes': (p) => points(p, /\\u([0-9a-f]{4})/gi),
  'JavaScript \\u{} escapes': (p) => points(p, /\\u\{([0-9a-f]{1,6})\}/gi),
  'full-width forms': (p) => p.replace(/[\uff01-\uff5e]/g, (ch) => String.fromCharCode(ch.charCodeAt(0) - 0xfee0)),
  'base32, padded': fromBase32,
  'base32, unpadded': fromBase32,
  'base32 in lower case, padded': fromBase32,
  'base32 in lower case, unpadded': fromBase32,
  'base32 in groups of four': (p) => fromBase32(p.replace(/ /g, '')),
  'base32 in groups of four with dashes, unpadded': (p) => fromBase32(p.replace(/-/g, '')),
  'base32 in lower-case groups of four': (p) => fromBase32(p.replace(/ /g, '')),
  'base64 of its UTF-16LE bytes': (p) => fromBase64(p, 'utf16le'),
  'base64 of a UTF-16LE command holding it': (p) => fromBase64(p, 'utf16le'),
  'base64 of its UTF-16BE bytes': (p) => fromBase64Be(p),
  "base64 of its UTF-16BE bytes after a byte-order mark (Java's \"UTF-16\")": (p) => fromBase64Be(p).replace(/^\ufeff/, ''),
  'base64 in groups of four': (p) => fromBase64(p, 'utf8'),
  'HTML character references': (p) => points(p, /&#x([0-9a-f]{1,6});?/gi),
  'percent-encoded bytes': (p) => bytesText(hexPairs(p.replace(/%/g, ''))),
  'MIME base64 lines of a text holding it': (p) => fromBase64(p, 'utf8'),
};
