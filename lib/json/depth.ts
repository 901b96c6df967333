// How deeply a JSON text nests, found in one linear pass without parsing (strings skipped). Parsers
// that recurse (jsonc-parser, our walkers) are only given texts under the limit.

/** No record of the interface nests deeper than a handful of levels; this is far past any of them. */
export const MAX_JSON_DEPTH = 256;

/** True when brackets outside strings nest deeper than `limit` (stops reading as soon as they do). */
export function nestsDeeperThan(text: string, limit = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) { if (++depth > limit) return true; }
    else if ((c === 0x7d || c === 0x5d) && depth > 0) depth--;
  }
  return false;
}
