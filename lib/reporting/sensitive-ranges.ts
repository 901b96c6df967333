// What the structure walkers (json-ranges.ts, xml-ranges.ts, form-ranges.ts) find, and how ranges of a
// text become markers. The walkers are pure functions from text to ranges; the Redactor (redact.ts)
// decides what to learn and what to write in their place.
import { BODY_LIMITS, limitMessage, type BodyLimit } from '../body-limits.js';
import type { Sensitivity } from '../contract/types.js';

/** A member, element or parameter named as sensitive: where its value stands in the text. */
export interface SensitiveRange {
  readonly start: number;
  readonly end: number;
  readonly kind: Sensitivity;
  /** The value as its marker describes it: a string, a number (0), {}, [] or a literal. */
  readonly shape: unknown;
  /** Every string inside, as a reader reads it: what the Redactor learns. */
  readonly values: readonly string[];
  /** How a marker is written in its place: a JSON string, plain text, or URL-encoded. */
  readonly spelling: 'json' | 'text' | 'url';
}

/** Names of the interface's kind to look up: the contract's sensitivity of a name under the policy. */
export type KindOf = (name: string) => Sensitivity | undefined;

/** A range of a text and the marker that replaces it. */
export type Range = [start: number, end: number, marker: string];

/** Replaces each range by its marker. Overlapping ranges become one: written as the marker of a range
 *  that covers them all, or else as `joined(start, end, marker)` makes it from the longest one's (a
 *  value found again and again in a run of text, two secrets that share an end): the longest one's
 *  own marker would state its own length, not that of what the joined range hides. */
export function replaceRanges(text: string, ranges: Range[], joined: (start: number, end: number, longest: string) => string): string {
  if (!ranges.length) return text;
  ranges.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  // Each joined range, and the longest of the ranges in it (the first of them when several are as long).
  const merged: Array<[start: number, end: number, longest: Range]> = [];
  for (const r of ranges) {
    const top = merged[merged.length - 1];
    if (top && r[0] < top[1]) {
      if (r[1] - r[0] > top[2][1] - top[2][0]) top[2] = r;
      top[1] = Math.max(top[1], r[1]);
    } else merged.push([r[0], r[1], r]);
  }
  let out = '';
  let at = 0;
  for (const [start, end, longest] of merged) {
    const covers = longest[0] === start && longest[1] === end;
    out += text.slice(at, start) + (covers ? longest[2] : joined(start, end, longest[2]));
    at = end;
  }
  return out + text.slice(at);
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const WITHHELD = (Object.keys(BODY_LIMITS) as BodyLimit[]).map((l) => escapeRegExp(`the text ${limitMessage(l)}`)).join('|');
/** A marker exactly as the Redactor writes one: only its own words, digits and punctuation, so a
 *  target cannot pass a value off as a marker (what is inside a marker is never searched again). */
export const MARKER = new RegExp(`«(?:(?:credential|personal|secret header): (?:string, \\d+ chars|number|boolean|null|object|array|undefined)|secret: (?:\\d+ chars|words)|withheld: \\d+ characters; (?:${WITHHELD}))»`, 'g');

/** The markers already in a text (an output redacted once and passed through the boundary again). */
export const markersIn = (text: string): Array<[number, number]> =>
  text.includes('«') ? [...text.matchAll(MARKER)].map((m): [number, number] => [m.index, m.index + m[0].length]) : [];
