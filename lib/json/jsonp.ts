// Reads a JSONP body in one linear pass (no backtracking regex: a hostile body cannot make it slow).
// Accepted, as JavaScript writers of JSONP produce them:
//   name(json)            ServiceStack
//   name(json);           with whitespace anywhere around the call
//   /**/name(json)        leading comments (the Rosetta-Flash guard of Express, Rails and others)
//   /**/ typeof name === 'function' && name(json);   Express's res.jsonp
//   name(json); // x      trailing comments: a browser runs the script as the call alone
// Refused: anything that runs more code, and a /* never closed (the script does not run at all).
// jsonpPattern states the same language as a regular expression, for the OpenAPI document: both are
// built from the pieces below, and test/jsonp-language.test.ts holds them to the same samples.
export type JsonpParts = { readonly ok: true; readonly callback: string; readonly json: string } | { readonly ok: false; readonly error: string };

const NAME = /^[^\s()]+$/;
/** JavaScript's line terminators (ECMA-262 12.3): each ends a // comment, not only \n. */
const LINE_TERMINATORS = String.raw`\n\r\u2028\u2029`;
const LINE_END = new RegExp(`[${LINE_TERMINATORS}]`);
const NOT_A_CALL = 'the body is not of the form name(json)';
const UNCLOSED = 'the body has a /* comment that is never closed';

/** Skips whitespace and JavaScript comments from `i`: the index of the next code character, or -1 in a /* never closed. */
function skipTrivia(s: string, i: number): number {
  for (;;) {
    while (i < s.length && /\s/.test(s[i]!)) i++;
    if (s.startsWith('/*', i)) {
      const end = s.indexOf('*/', i + 2);
      if (end < 0) return -1;
      i = end + 2;
    } else if (s.startsWith('//', i)) {
      i += 2;
      while (i < s.length && !LINE_END.test(s[i]!)) i++;
    } else return i;
  }
}

/** The first ")" from `i` outside a JSON string: the end of the call when its argument is JSON (a ")" in a trailing comment is not). */
function callEnd(s: string, i: number): number {
  for (let quoted = false; i < s.length; i++) {
    const c = s[i];
    if (quoted) {
      if (c === '\\') i++;
      else if (c === '"') quoted = false;
    } else if (c === '"') quoted = true;
    else if (c === ')') return i;
  }
  return -1;
}

/** Express's guard, `typeof name === 'function' && `, around the name it tests. */
const GUARD_HEAD = String.raw`typeof\s+`;
const GUARD_TAIL = String.raw`\s*={2,3}\s*(?:'function'|"function")\s*&&\s*`;
const GUARD = new RegExp(`${GUARD_HEAD}([^\\s()=&]+)${GUARD_TAIL}`, 'y');

/** The same language as splitJsonp, as an ECMA-262 pattern (JSON Schema's dialect), calling a name
 *  of `nameClass` on a JSON object. A regular expression cannot tell JSON: the argument is any text
 *  from "{" to the last "}" before the first ")" outside a string, as splitJsonp cuts it, which the
 *  check then parses. Every repeated part matches one way only, so a long body does not make
 *  matching slow. */
export function jsonpPattern(nameClass: string): string {
  const name = `${nameClass}+`;
  const block = String.raw`/\*[^*]*\*+(?:[^/*][^*]*\*+)*/`;
  // A // comment runs to a line end or the end: never split in two, so it matches one way only.
  const line = `//[^${LINE_TERMINATORS}]*(?![^${LINE_TERMINATORS}])`;
  const trivia = String.raw`(?:\s|${block}|${line})*`;
  const argument = String.raw`\([\t\n\r ]*\{(?:[^")]|"(?:[^"\\]|\\[\s\S])*")*\}[\t\n\r ]*\)`;
  return `^${trivia}(?:${GUARD_HEAD}(${name})${GUARD_TAIL}\\1|${name})\\s*${argument}${trivia}(?:;${trivia})?$`;
}

export function splitJsonp(body: string): JsonpParts {
  let i = skipTrivia(body, 0);
  if (i < 0) return { ok: false, error: UNCLOSED };
  GUARD.lastIndex = i;
  const guard = GUARD.exec(body);
  if (guard) i += guard[0].length;
  const open = body.indexOf('(', i);
  const close = open < 0 ? -1 : callEnd(body, open + 1);
  if (close < 0) return { ok: false, error: NOT_A_CALL };
  const callback = body.slice(i, open).trim();
  if (!NAME.test(callback)) return { ok: false, error: NOT_A_CALL };
  if (guard && guard[1] !== callback) return { ok: false, error: `the typeof guard names ${guard[1]} but calls ${callback}` };
  let end = skipTrivia(body, close + 1);
  if (body[end] === ';') end = skipTrivia(body, end + 1);
  if (end < 0) return { ok: false, error: UNCLOSED };
  if (end < body.length) return { ok: false, error: 'the body has code after the call (only a ";", whitespace and comments may follow it)' };
  return { ok: true, callback, json: body.slice(open + 1, close) };
}
