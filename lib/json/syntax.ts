// JSON syntax (RFC 8259) checked byte by byte by a reader that already walks a file's bytes (the HAR
// scan): structure, numbers and literals as they come, a string taken whole at its opening quote. A
// string's content (control characters, escapes) is checked by stringDefect only where a defect is
// known to lie, so that the bytes of bodies are not walked twice. A defect is named by its kind, never
// by the text (a file may hold secrets).

const enum Expect { TOP, VALUE, VALUE_OR_CLOSE, KEY, KEY_OR_CLOSE, COLON, AFTER, DONE }
/** A number or literal being read: the number's grammar state (RFC 8259 6), or a literal. */
const enum Scalar { NONE, MINUS, ZERO, INT, DOT, FRAC, E, E_SIGN, EXP, WORD }

export const UNEXPECTED = 'an unexpected character';
const KINDS = {
  comma: 'a missing comma', colon: 'a missing colon', trailing: 'a trailing comma', value: 'a missing value',
  bracket: 'a closing bracket of another kind', word: 'a bare word, where JSON has only true, false and null',
  number: 'a malformed number', after: 'text after the top-level value',
  control: 'a control character inside a string', escape: 'an invalid escape in a string',
} as const;

const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
/** A byte that would go on a number or a word: after one that is complete, it makes it malformed. */
const goesOn = (c: number) => isDigit(c) || (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x2e || c === 0x2b || c === 0x2d || c === 0x5f;
const TERMINAL: readonly boolean[] = [false, false, true, true, false, true, false, false, true, false];
const WORDS: Readonly<Record<number, string>> = { 0x74: 'true', 0x66: 'false', 0x6e: 'null' };

/** The number's next state on byte `c`, or NONE where `c` does not go on it. */
function step(s: Scalar, c: number): Scalar {
  const d = isDigit(c);
  const e = c === 0x65 || c === 0x45;
  switch (s) {
    case Scalar.MINUS: return c === 0x30 ? Scalar.ZERO : d ? Scalar.INT : Scalar.NONE;
    case Scalar.ZERO: return c === 0x2e ? Scalar.DOT : e ? Scalar.E : Scalar.NONE;
    case Scalar.INT: return d ? Scalar.INT : c === 0x2e ? Scalar.DOT : e ? Scalar.E : Scalar.NONE;
    case Scalar.DOT: case Scalar.FRAC: return d ? Scalar.FRAC : s === Scalar.FRAC && e ? Scalar.E : Scalar.NONE;
    case Scalar.E: return d ? Scalar.EXP : c === 0x2b || c === 0x2d ? Scalar.E_SIGN : Scalar.NONE;
    case Scalar.E_SIGN: case Scalar.EXP: return d ? Scalar.EXP : Scalar.NONE;
    default: return Scalar.NONE;
  }
}

/** The syntax of one JSON text, fed every byte outside its strings (whitespace may be left out while
 *  `scalar` is false) and each string's opening quote. */
export class JsonSyntax {
  private expect = Expect.TOP;
  /** Open containers: true an object, false an array. */
  private readonly open: boolean[] = [];
  private number = Scalar.NONE;
  private word = '';
  private letters = 0;
  /** A number or literal is being read (whitespace ends it). */
  scalar = false;

  /** The kind of defect byte `c` makes, or undefined. */
  byte(c: number): string | undefined {
    if (this.scalar) {
      const bad = this.scalarByte(c);
      if (bad !== undefined || this.scalar) return bad;
    }
    if (isSpace(c)) return undefined;
    switch (this.expect) {
      case Expect.TOP: case Expect.VALUE: case Expect.VALUE_OR_CLOSE:
        if (c === 0x5d && this.expect === Expect.VALUE_OR_CLOSE) return this.close(false);
        if (c === 0x5d) return this.expect === Expect.VALUE && !this.open[this.open.length - 1] ? KINDS.trailing : UNEXPECTED;
        return this.value(c);
      case Expect.KEY: case Expect.KEY_OR_CLOSE:
        if (c === 0x22) { this.expect = Expect.COLON; return undefined; }
        if (c === 0x7d) return this.expect === Expect.KEY_OR_CLOSE ? this.close(true) : KINDS.trailing;
        return UNEXPECTED;
      case Expect.COLON:
        if (c === 0x3a) { this.expect = Expect.VALUE; return undefined; }
        return KINDS.colon;
      case Expect.AFTER:
        if (c === 0x2c) { this.expect = this.open[this.open.length - 1] ? Expect.KEY : Expect.VALUE; return undefined; }
        if (c === 0x7d || c === 0x5d) return this.close(c === 0x7d);
        return c === 0x22 || c === 0x7b || c === 0x5b || goesOn(c) ? KINDS.comma : UNEXPECTED;
      default:
        return KINDS.after;
    }
  }

  /** Byte `c` within a number or literal, or just past it (then `scalar` is false and `c` is read as structure). */
  private scalarByte(c: number): string | undefined {
    if (this.number === Scalar.WORD) {
      if (this.letters < this.word.length) return c === this.word.charCodeAt(this.letters) ? (this.letters++, undefined) : KINDS.word;
      if (goesOn(c)) return KINDS.word;
    } else {
      const next = step(this.number, c);
      if (next !== Scalar.NONE) { this.number = next; return undefined; }
      if (!TERMINAL[this.number] || goesOn(c)) return KINDS.number;
    }
    this.scalar = false;
    return undefined;
  }

  /** The kind of defect the text's end makes (outside a string), or undefined. */
  end(): string | undefined {
    if (this.scalar) {
      if (this.number === Scalar.WORD ? this.letters < this.word.length : !TERMINAL[this.number]) return `the file ends inside ${this.number === Scalar.WORD ? 'a bare word' : 'a number'}`;
      this.scalar = false;
    }
    return this.expect === Expect.DONE ? undefined : this.expect === Expect.TOP ? 'the file holds no JSON value' : 'the file ends before its value does';
  }

  private value(c: number): string | undefined {
    if (c === 0x7b || c === 0x5b) {
      this.open.push(c === 0x7b);
      this.expect = c === 0x7b ? Expect.KEY_OR_CLOSE : Expect.VALUE_OR_CLOSE;
      return undefined;
    }
    const word = WORDS[c];
    if (c === 0x2d || isDigit(c)) this.number = c === 0x2d ? Scalar.MINUS : c === 0x30 ? Scalar.ZERO : Scalar.INT;
    else if (word) { this.number = Scalar.WORD; this.word = word; this.letters = 1; } else if (c !== 0x22) {
      return c === 0x2c || c === 0x7d ? KINDS.value : goesOn(c) ? KINDS.word : UNEXPECTED;
    }
    this.scalar = c !== 0x22;
    this.expect = this.open.length ? Expect.AFTER : Expect.DONE;
    return undefined;
  }

  private close(object: boolean): string | undefined {
    if (this.open[this.open.length - 1] !== object) return KINDS.bracket;
    this.open.pop();
    this.expect = this.open.length ? Expect.AFTER : Expect.DONE;
    return undefined;
  }
}

/** Where a string is at a byte: outside one, inside, just after its backslash. */
export interface StringState { readonly inString: boolean; readonly escaped: boolean }

/** The first defect of a string's content (a control character, an invalid escape) in b[from, to),
 *  whose strings are as `state` says at `from`: its place and kind. Quotes alone open strings outside
 *  them (the structure is JsonSyntax's). */
export function stringDefect(b: Buffer, from: number, to: number, state: StringState): { at: number; kind: string } | undefined {
  let { inString, escaped } = state;
  let hex = 0; // hex digits of a \u escape to come
  for (let i = from; i < to; i++) {
    const c = b[i]!;
    if (!inString) { inString = c === 0x22; continue; }
    if (hex) {
      if (!(isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46))) return { at: i, kind: KINDS.escape };
      hex--;
    } else if (escaped) {
      escaped = false;
      if (c === 0x75) hex = 4;
      else if (!'"\\/bfnrt'.includes(String.fromCharCode(c))) return { at: i, kind: KINDS.escape };
    } else if (c < 0x20) return { at: i, kind: KINDS.control };
    else if (c === 0x5c) escaped = true;
    else if (c === 0x22) inString = false;
  }
  return undefined;
}
