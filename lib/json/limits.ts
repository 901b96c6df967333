// The shape of a JSON text measured in one linear pass without parsing it (strings are skipped, not
// decoded), so a text that floods a dimension is refused before JSON.parse or any recursive reader
// builds anything from it. Works on truncated and malformed text too (it only counts).
import { BODY_LIMITS, type BodyLimit } from '../body-limits.js';

/** The first limit `text` passes, or undefined when it stays within all of them. */
export function jsonLimitPassed(text: string): BodyLimit | undefined {
  const members: number[] = []; // per open container: values seen in it
  let nodes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) { // a string: skip it, measuring it when it is a member name
      const start = i;
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) i++;
        else if (d === 0x22) break;
      }
      if (i - start - 1 > BODY_LIMITS.nameLength && /^\s*:/.test(text.slice(i + 1, i + 64))) return 'nameLength';
      if (++nodes > BODY_LIMITS.nodes) return 'nodes';
    } else if (c === 0x7b || c === 0x5b) {
      if (members.length >= BODY_LIMITS.depth) return 'depth';
      if (++nodes > BODY_LIMITS.nodes) return 'nodes';
      members.push(0);
    } else if (c === 0x7d || c === 0x5d) {
      members.pop();
    } else if (c === 0x2c) {
      const top = members.length - 1;
      if (top >= 0 && ++members[top]! >= BODY_LIMITS.children) return 'children';
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) { // a number (or part of a malformed token)
      const start = i;
      while (i + 1 < text.length && /[0-9eE+.-]/.test(text[i + 1]!)) i++;
      if (i - start + 1 > BODY_LIMITS.numberLength) return 'numberLength';
      if (++nodes > BODY_LIMITS.nodes) return 'nodes';
    }
  }
  return undefined;
}
