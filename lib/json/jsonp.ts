// Reads a JSONP body in one linear pass (no backtracking regex: a hostile body cannot make it slow).
// Accepted, as JavaScript writers of JSONP produce them:
//   name(json)            ServiceStack
//   name(json);           with whitespace anywhere around the call
//   /**/name(json)        leading comments (the Rosetta-Flash guard of Express, Rails and others)
//   /**/ typeof name === 'function' && name(json);   Express's res.jsonp
export type JsonpParts = { readonly ok: true; readonly callback: string; readonly json: string } | { readonly ok: false; readonly error: string };

const NAME = /^[^\s()]+$/;

/** Skips whitespace and JavaScript comments from `i`; the index of the next code character. */
function skipTrivia(s: string, i: number): number {
  for (;;) {
    while (i < s.length && /\s/.test(s[i]!)) i++;
    if (s.startsWith('/*', i)) {
      const end = s.indexOf('*/', i + 2);
      if (end < 0) return s.length;
      i = end + 2;
    } else if (s.startsWith('//', i)) {
      const end = s.indexOf('\n', i + 2);
      i = end < 0 ? s.length : end + 1;
    } else return i;
  }
}

const GUARD = /^typeof\s+([^\s()=&]+)\s*={2,3}\s*(['"])function\2\s*&&\s*/;

export function splitJsonp(body: string): JsonpParts {
  let i = skipTrivia(body, 0);
  const guard = GUARD.exec(body.slice(i, i + 400)); // the guard is short; only a bounded prefix is read
  if (guard) i += guard[0].length;
  const open = body.indexOf('(', i);
  const close = body.lastIndexOf(')');
  if (open < 0 || close < open) return { ok: false, error: 'the body is not of the form name(json)' };
  const callback = body.slice(i, open).trim();
  if (!NAME.test(callback)) return { ok: false, error: 'the body is not of the form name(json)' };
  if (guard && guard[1] !== callback) return { ok: false, error: `the typeof guard names ${guard[1]} but calls ${callback}` };
  const tail = body.slice(close + 1).trim();
  if (tail !== '' && tail !== ';') return { ok: false, error: 'the body has more after the call than a ";"' };
  return { ok: true, callback, json: body.slice(open + 1, close) };
}
