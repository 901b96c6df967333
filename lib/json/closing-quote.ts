// Where a quoted text as JSON writes one ends (show() quotes every received value so), found in one
// pass: a backtracking pattern such as /"(?:[^"\\]|\\.)*"/ overflowed the stack on a value of 9 M
// characters.

/** The index of the quote closing the text that opens just before `from` (its backslash escapes
 *  skipped), or -1 when none closes it. */
export function closingQuote(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) return i;
    if (c === 0x5c) i++;
  }
  return -1;
}

/** `text` with each quoted text (its quotes included) replaced by what `replace` gives for it (its
 *  characters from `start` to `end`, quotes excluded), or left where it gives undefined; in one pass.
 *  A quote never closed, and what follows it, are left as they are. */
export function replaceQuoted(text: string, replace: (start: number, end: number) => string | undefined): string {
  let out = '';
  let from = 0;
  for (let at = text.indexOf('"'); at >= 0; at = text.indexOf('"', at + 1)) {
    const end = closingQuote(text, at + 1);
    if (end < 0) break;
    const replaced = replace(at + 1, end);
    if (replaced !== undefined) { out += `${text.slice(from, at)}${replaced}`; from = end + 1; }
    at = end;
  }
  return out + text.slice(from);
}
