// The one function through which every string a target supplied reaches a person: the console,
// JUnit, traceability.md, summary.json and the HTML report. Characters that act on a terminal or
// disguise text are shown escaped, as `\u202e` or `\x1b`, never raw:
//   - C0 and C1 controls and DEL (ESC starts terminal sequences: clear screen, OSC 52 clipboard
//     writes, cursor moves; CR redraws the line, so a false "Verdict:" could be drawn over the real one);
//   - format characters (bidi overrides and isolates that reverse what follows, zero-width
//     characters, the byte-order mark, tag characters), line and paragraph separators;
//   - lone surrogates, private-use and unassigned code points.
// A line keeps nothing that breaks it; a block (a request or response shown whole) keeps its line
// feeds and tabs, and shows every carriage return as \r (a CRLF as \r before its line feed: which line
// ends a body has is evidence too).
import { codePointCount } from '../contract/sensitivity.js';
import { detachedCopy } from '../detached.js';
import { withThousands } from '../digits.js';

const UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Co}\p{Cn}]/gu;
// Set subtraction needs the v flag (Node 20 has it; TypeScript's ES2023 target does not know it).
const UNSAFE_IN_BLOCK = new RegExp('[[\\p{Cc}--[\\n\\t]]\\p{Cf}\\p{Zl}\\p{Zp}\\p{Cs}\\p{Co}\\p{Cn}]', 'gv');

/** The characters displayBlock shows other than as they are (a carriage return among them), for
 *  matchAll only: a command that sends a text (a curl's body) writes them by their bytes instead. */
export const ESCAPED_IN_BLOCK = new RegExp(UNSAFE_IN_BLOCK.source, 'gv');

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

const escape = (c: string): string => {
  const named = NAMED[c];
  if (named) return named;
  const code = c.codePointAt(0)!;
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : code <= 0xffff ? `\\u${code.toString(16).padStart(4, '0')}` : `\\u{${code.toString(16)}}`;
};

/** One line, safe to print or render: every control, format and invisible character escaped. */
export const displayLine = (s: string): string => s.replace(UNSAFE, escape);

/** Several lines, safe to print or render: as displayLine, but line feeds and tabs are kept. */
export const displayBlock = (s: string): string => s.replace(UNSAFE_IN_BLOCK, escape);

/** Console text as CI runners read a step's output (stdout and stderr alike): GitHub's runner, as
 *  Azure Pipelines' agent, runs `##[command]` (`##vso[command]`) found anywhere in a line, and
 *  `::command::` at a line's start after white space. A target's `##[stop-commands]…` would silence the
 *  run's own annotations, `##[add-mask]…` hide its words. Their `#` and `:` are shown escaped, as
 *  `\x23` and `\x3a`, like every character a console does not show as it is. */
export const consoleText = (s: string): string =>
  s.replace(/#(?=#(?:vso)?\[)/gi, '\\x23').replace(/^([^\S\n]*):(?=:)/gm, '$1\\x3a');

/** Text as a Markdown code span: inert however it is written (no link, emphasis, HTML or autolink
 *  can form inside it). The fence is longer than any run of backticks in the text. */
export function markdownCode(s: string): string {
  const longest = Math.max(0, ...[...s.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence} ${s} ${fence}`;
}

/** Text as a fenced Markdown code block: inert however it is written (the fence is longer than any
 *  run of backticks in it, so nothing inside closes it); controls escaped as displayBlock does. */
export function markdownBlock(s: string): string {
  const longest = Math.max(2, ...[...s.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}text\n${displayBlock(s)}\n${fence}`;
}

/** A code span inside a Markdown table cell: a pipe would end the cell (and the span with it), so
 *  it is escaped as GFM tables want, and the cell shows it as a pipe. */
export const markdownCell = (s: string): string => markdownCode(s).replace(/\|/g, '\\|');

/** URLs written so that no viewer turns them into links (Allure's error view links anything that
 *  starts with a scheme or "www."): "http[:]//host/…", the convention of security reports. A target's
 *  URL stays readable and is never one click away. */
export const inertUrls = (s: string): string =>
  s.replace(/\b(https?|ftp):\/\//gi, '$1[:]//').replace(/\bmailto:/gi, 'mailto[:]').replace(/\bwww\./gi, 'www[.]');

/** The display bound: characters of one value (a received value, a difference's legacy or candidate
 *  value) any output shows. Cut after redaction, never before (a cut could split a secret the
 *  redactor would otherwise recognise), and never inside a marker («…») or a surrogate pair. */
export const MAX_SHOWN_VALUE = 200;

/** `s` cut at `max` characters, ending in "…" when cut; a copy of its own, never a view of `s`. */
export function shownValue(s: string, max = MAX_SHOWN_VALUE): string {
  if (s.length <= max) return detachedCopy(s);
  let end = max - 1;
  const open = s.lastIndexOf('«', end - 1);
  if (open >= 0 && s.lastIndexOf('»', end - 1) < open) end = open; // a marker is shown whole or not at all
  const code = s.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--; // never half a surrogate pair
  return detachedCopy(`${s.slice(0, end)}…`);
}

/** The inside of a JSON string literal cut before `max` characters, never inside an escape: `\"` would
 *  run the quote on, half a `\u00e9` reads as nothing. Without the "…". */
function quotedHead(inner: string, max: number): string {
  let head = shownValue(inner, max).slice(0, -1);
  const escape = /(\\+)(u[0-9a-fA-F]{0,3})?$/.exec(head);
  if (escape && (escape[1]!.length % 2 === 1)) head = head.slice(0, escape.index + escape[1]!.length - 1);
  return head;
}

/** A JSON string in a message: a received value as show() (lib/checks/check.ts) quotes it. */
const QUOTED = /"(?:[^"\\]|\\.)*"/g;

/** Characters `s` takes where it is printed: escaped as one line (displayLine), then for a CI
 *  console (consoleText). */
export const printedLength = (s: string): number => consoleText(displayLine(s)).length;

/** A message printed within `max` characters (printedLength: U+202E takes 6 of them, a control 4).
 *  When longer, each value it quotes (as show() writes one) is cut first, to MAX_SHOWN_VALUE
 *  characters (half of `max` when that is less: a line that leaves its message little room) with its
 *  full length stated: a check says what it received before what is wrong with it, and a cut at the
 *  end kept a 16 KB header and lost the reason. Only then is the end cut. Like every cut, after
 *  redaction (a length stated is of the value as shown, a marker in place of what it hides). */
export const shownMessage = (s: string, max: number): string => printedWithin(s, max, cutMessage);

/** A received value printed within `max` characters (printedLength), cut as shownValue cuts it: a
 *  value of U+202E cut at 200 characters printed 1 200. */
export const printedValue = (s: string, max = MAX_SHOWN_VALUE): string => printedWithin(s, max, shownValue);

/** `s` cut by `cut` to fewer characters in the ratio its escapes add, until it fits (each round cuts
 *  more). Fewer by as many as they add left a value of U+202E, 6 characters each, only its "…". */
function printedWithin(s: string, max: number, cut: (s: string, max: number) => string): string {
  let room = max;
  for (;;) {
    const shown = cut(s, room);
    const printed = printedLength(shown);
    if (printed <= max || room <= 1) return shown;
    room = Math.max(1, Math.min(room - 1, Math.floor((room * max) / printed)));
  }
}

/** `s` cut to `max` characters, its quoted values first (shownMessage). */
function cutMessage(s: string, max: number): string {
  if (s.length <= max) return detachedCopy(s);
  const valueMax = Math.min(MAX_SHOWN_VALUE, Math.ceil(max / 2));
  return shownValue(s.replace(QUOTED, (quoted) => {
    const inner = quoted.slice(1, -1);
    if (inner.length <= valueMax) return quoted;
    const head = quotedHead(inner, valueMax);
    let length = inner.length;
    try { length = codePointCount(JSON.parse(quoted) as string); } catch { /* a quote a check wrote raw: its characters as shown */ }
    return `"${head}…" (${withThousands(length)} characters)`;
  }), max);
}

/** Characters of one name in a path (a JSON member, an element's local name) a path past
 *  MAX_SHOWN_VALUE shows whole: more than any name the contract gives, so only a received one is cut. */
export const MAX_SHOWN_NAME = 64;
/** Of a name cut, the characters kept at its start and at its end: two names that share a long start
 *  (or a long end) still read apart, by the other end or by the count of characters cut between. */
const NAME_HEAD = 32;
const NAME_TAIL = 12;

/** A name as a path past the bound shows it: whole up to MAX_SHOWN_NAME characters, else its start
 *  and its end around the count of characters (code points) cut, "Naaa…(936 characters cut)…aaa1".
 *  Neither end splits a marker («…») or a surrogate pair. */
function shownName(name: string): string {
  if (name.length <= MAX_SHOWN_NAME) return name;
  const head = shownValue(name, NAME_HEAD + 1).slice(0, -1);
  let from = name.length - NAME_TAIL;
  const code = name.charCodeAt(from);
  if (code >= 0xdc00 && code <= 0xdfff) from++;
  const close = name.indexOf('»', from);
  const open = name.indexOf('«', from);
  if (close >= 0 && (open < 0 || open > close)) from = close + 1; // the end begins inside a marker
  const shown = `${head}…(${withThousands(codePointCount(name.slice(head.length, from)))} characters cut)…${name.slice(from)}`;
  return shown.length < name.length ? shown : name;
}

/** The names of a JSON path ($.a["b c"][2]) and of an element path (/Envelope/Body/x[2]). */
const JSON_PATH_NAMES = /\.([^.[]+)|\["((?:[^"\\]|\\.)*)"\]/g;
const ELEMENT_PATH_NAMES = /\/([^/[]+)/g;

/** A quoted member name of a JSON path, cut as shownName cuts a name: read as the string it writes,
 *  so that no escape is split, and written again as JSON writes it. */
function shownQuotedName(whole: string, quoted: string): string {
  if (quoted.length <= MAX_SHOWN_NAME) return whole;
  let name: string;
  try { name = JSON.parse(`"${quoted}"`) as string; } catch { return `["${quotedHead(quoted, MAX_SHOWN_NAME)}…"]`; } // not as JSON writes it
  return `[${JSON.stringify(shownName(name))}]`;
}

/** A finding's path as shown. A path names what it received, and a name may run to the parser's limit
 *  (1 024 characters), or past it in JSON: placed before the reason on a line, it pushed the reason out.
 *  When the path is longer than MAX_SHOWN_VALUE, each name past MAX_SHOWN_NAME is cut (shownName), as
 *  shownMessage cuts the values it quotes; then, if still too long, the end. Within MAX_SHOWN_VALUE
 *  characters as printed (printedWithin: a name of 60 U+202E, whole, printed 366). After redaction. */
export const shownPath = (path: string): string => printedWithin(path, MAX_SHOWN_VALUE, cutPath);

/** `path` cut to `max` characters, its names first (shownPath). */
function cutPath(path: string, max: number): string {
  if (path.length <= max) return detachedCopy(path);
  const cut = path.startsWith('$')
    ? path.replace(JSON_PATH_NAMES, (whole, member: string | undefined, quoted: string | undefined) =>
      (member !== undefined ? `.${shownName(member)}` : shownQuotedName(whole, quoted!)))
    : path.startsWith('/') ? path.replace(ELEMENT_PATH_NAMES, (_whole, element: string) => `/${shownName(element)}`) : path;
  return shownValue(cut, max);
}
