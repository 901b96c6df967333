// Reads a JSONP body in one linear pass (no backtracking regex: a hostile body cannot make it slow).
// Accepted, as JavaScript writers of JSONP produce them:
//   name(json)            ServiceStack
//   name(json);           with whitespace anywhere around the call
//   /**/name(json)        leading comments (the Rosetta-Flash guard of Express, Rails and others)
//   /**/ typeof name === 'function' && name(json);   Express's res.jsonp
//   name(json); // x      trailing comments: a browser runs the script as the call alone
// Refused: anything that runs more code, and a /* never closed (the script does not run at all).
export type JsonpParts = { readonly ok: true; readonly callback: string; readonly json: string } | { readonly ok: false; readonly error: string };

const NAME = /^[^\s()]+$/;
/** JavaScript's line terminators (ECMA-262 12.3): each ends a // comment, not only \n. */
const LINE_END = /[\n\r\u2028\u2029]/;
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

const GUARD = /^typeof\s+([^\s()=&]+)\s*={2,3}\s*(['"])function\2\s*&&\s*/;

export function splitJsonp(body: string): JsonpParts {
  let i = skipTrivia(body, 0);
  if (i < 0) return { ok: false, error: UNCLOSED };
  const guard = GUARD.exec(body.slice(i, i + 400)); // the guard is short; only a bounded prefix is read
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
