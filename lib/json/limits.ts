// The shape of a JSON text measured in one linear pass without parsing it (strings are skipped, not
// decoded), so a text that floods a dimension is refused before JSON.parse or any recursive reader
// builds anything from it. Works on truncated and malformed text too (it only counts). The same pass
// notes what JSON.parse throws away and the checks need: whether a number is written other than as
// an integer literal (42.0, 4.2e1) or has more digits than a double keeps (an integer beyond 2^53
// parses to a neighbour), and how many members each object has (in document order), so a
// duplicate key shows as an object with fewer keys after parsing than it had in the text.
import { BODY_LIMITS, type BodyLimit } from '../body-limits.js';

export interface JsonShape {
  /** The first limit the text passes. */
  readonly limit?: BodyLimit;
  /** A number somewhere is not kept as written by JSON.parse: a fraction, an exponent, or 16 digits
   *  and more (the lexemes are then read: ParsedJson.numbers). */
  readonly inexactNumber: boolean;
  /** Members of each object, in the order the objects open. */
  readonly memberCounts: readonly number[];
  /** Values counted (up to the first limit passed). */
  readonly values: number;
}

/** `limits`: the body limits unless a reader of another kind of file states its own. */
export function measureJson(text: string, limits: Readonly<Record<BodyLimit, number>> = BODY_LIMITS): JsonShape {
  // Per open container: values seen in it, and where its member count goes (-1 for an array).
  const members: number[] = [];
  const slots: number[] = [];
  const memberCounts: number[] = [];
  let nodes = 0;
  let inexactNumber = false;
  const out = (limit: BodyLimit): JsonShape => ({ limit, inexactNumber, memberCounts, values: nodes });
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) { // a string: skip it, measuring it when it is a member name
      const start = i;
      i = stringEnd(text, i);
      if (i - start - 1 > limits.nameLength && /^\s*:/.test(text.slice(i + 1, i + 64))) return out('nameLength');
      if (++nodes > limits.nodes) return out('nodes');
    } else if (c === 0x7b || c === 0x5b) {
      if (members.length >= limits.depth) return out('depth');
      if (++nodes > limits.nodes) return out('nodes');
      members.push(0);
      slots.push(c === 0x7b ? memberCounts.push(0) - 1 : -1);
    } else if (c === 0x7d || c === 0x5d) {
      const slot = slots.pop();
      const seen = members.pop() ?? 0;
      // An object's members: commas + 1, unless it is empty ("{}" has no value before its end).
      if (slot !== undefined && slot >= 0) memberCounts[slot] = text.charCodeAt(lastCodeBefore(text, i)) === 0x7b ? 0 : seen + 1;
    } else if (c === 0x2c) {
      const top = members.length - 1;
      if (top >= 0 && ++members[top]! >= limits.children) return out('children');
    } else if (c === 0x74 || c === 0x66 || c === 0x6e) { // true, false, null (or a malformed word): a value too
      while (i + 1 < text.length && isLowerLetter(text.charCodeAt(i + 1))) i++;
      if (++nodes > limits.nodes) return out('nodes');
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) { // a number (or part of a malformed token)
      const start = i;
      while (i + 1 < text.length && isNumberCode(text.charCodeAt(i + 1))) i++;
      if (i - start + 1 > limits.numberLength) return out('numberLength');
      if (i - start + 1 >= 16) inexactNumber = true;
      for (let k = start; k <= i && !inexactNumber; k++) {
        const d = text.charCodeAt(k);
        if (d === 0x2e || d === 0x65 || d === 0x45) inexactNumber = true;
      }
      if (++nodes > limits.nodes) return out('nodes');
    }
  }
  return { inexactNumber, memberCounts, values: nodes };
}

// Character classes by code, not by a regular expression per character: this pass runs over every
// body before it is parsed, and the expressions cost more than JSON.parse itself (26 against 15 µs
// for a 4 KB login answer).
/** a-z */
const isLowerLetter = (c: number): boolean => c >= 0x61 && c <= 0x7a;
/** 0-9 e E + . - */
const isNumberCode = (c: number): boolean => (c >= 0x30 && c <= 0x39) || c === 0x65 || c === 0x45 || c === 0x2b || c === 0x2e || c === 0x2d;

/** Where the string opened at `start` ends (its closing quote), or the text's length: the next quote
 *  that an even number of backslashes precede (found by indexOf, not character by character). */
export function stringEnd(text: string, start: number): number {
  for (let j = text.indexOf('"', start + 1); j >= 0; j = text.indexOf('"', j + 1)) {
    let k = j - 1;
    while (k > start && text.charCodeAt(k) === 0x5c) k--;
    if ((j - 1 - k) % 2 === 0) return j;
  }
  return text.length;
}

/** The index of the last non-whitespace character before `i`. */
function lastCodeBefore(text: string, i: number): number {
  let k = i - 1;
  while (k >= 0 && (text.charCodeAt(k) === 0x20 || text.charCodeAt(k) === 0x0a || text.charCodeAt(k) === 0x0d || text.charCodeAt(k) === 0x09)) k--;
  return k;
}

/** The first limit `text` passes, or undefined when it stays within all of them. */
export const jsonLimitPassed = (text: string): BodyLimit | undefined => measureJson(text).limit;
