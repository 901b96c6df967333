// A message's body re-indented for reading in the HTML report (the bytes as received sit one click
// away). Only whitespace between tokens is added: every token stays as written (`42.0` stays
// `42.0`, an entity stays an entity), and a body that does not read as one JSON value or one XML
// element is not re-indented at all.
import { format, type Edit } from 'jsonc-parser';

const INDENT = '  ';
/** Longer bodies are shown as received only: indenting holds every token at once, and the HTML
 *  writer runs in the harness's own process, whose memory is bounded (a flood of tiny elements). */
export const MAX_PRETTY_CHARS = 256 * 1024;

/** `edits` (format's: in document order, none overlapping) made in one pass. jsonc-parser's
 *  applyEdits cuts the whole text again for each edit: a login record's ~500 edits cost it about 30
 *  times as much. */
function applied(text: string, edits: readonly Edit[]): string {
  let out = '';
  let at = 0;
  for (const e of edits) {
    out += text.slice(at, e.offset) + e.content;
    at = e.offset + e.length;
  }
  return out + text.slice(at);
}

function prettyJson(body: string): string | undefined {
  try {
    JSON.parse(body); // one JSON value exactly (RFC 8259), or left as received
  } catch {
    return undefined;
  }
  return applied(body, format(body, undefined, { tabSize: 2, insertSpaces: true, eol: '\n' }));
}

/** Markup tokens: comments, CDATA, declarations and tags whole (a `>` inside CDATA or a quoted
 *  attribute does not end them), and the text between. */
const XML_TOKEN = /<!--[\s\S]*?-->|<!\[CDATA\[[\s\S]*?\]\]>|<[?!][^>]*>|<\/?[^\s<>/!?][^<>"']*(?:(?:"[^"]*"|'[^']*')[^<>"']*)*\/?>|[^<]+/gy;

function prettyXml(body: string): string | undefined {
  const tokens: string[] = [];
  XML_TOKEN.lastIndex = 0;
  for (let m = XML_TOKEN.exec(body); m; m = XML_TOKEN.exec(body)) {
    tokens.push(m[0]);
    if (XML_TOKEN.lastIndex === body.length) break;
  }
  if (tokens.join('') !== body) return undefined; // not markup this reads whole
  const out: string[] = [];
  const open: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (!t.startsWith('<')) {
      if (t.trim()) return undefined; // text beside elements (mixed content): left as it is
      continue;
    }
    const pad = INDENT.repeat(open.length);
    const end = /^<\/([^\s>]+)/.exec(t);
    if (end) {
      if (open.pop() !== end[1]) return undefined;
      out.push(`${INDENT.repeat(open.length)}${t}`);
      continue;
    }
    const start = /^<([^\s/>!?]+)/.exec(t);
    if (!start || t.endsWith('/>')) { out.push(`${pad}${t}`); continue; }
    // An element holding only text (or nothing) stays on one line, its text untouched.
    const next = tokens[i + 1];
    const after = tokens[i + 2];
    const closes = (s: string | undefined) => s !== undefined && s.startsWith(`</${start[1]}`) && /^\s*>$/.test(s.slice(start[1]!.length + 2));
    if (next !== undefined && closes(next)) { out.push(`${pad}${t}${next}`); i += 1; continue; }
    if (next !== undefined && (!next.startsWith('<') || next.startsWith('<![CDATA[')) && closes(after)) { out.push(`${pad}${t}${next}${after!}`); i += 2; continue; }
    out.push(`${pad}${t}`);
    open.push(start[1]!);
  }
  return open.length ? undefined : out.join('\n');
}

/** The body re-indented, or undefined when it is not JSON or XML this reads whole, or is already
 *  laid out so. */
export function prettyBody(body: string): string | undefined {
  if (body.length > MAX_PRETTY_CHARS) return undefined;
  const lead = body.trimStart()[0];
  const pretty = lead === '{' || lead === '[' ? prettyJson(body) : lead === '<' ? prettyXml(body.trim()) : undefined;
  return pretty !== undefined && pretty !== body ? pretty : undefined;
}

/** A shown HTTP message (start line, headers, blank line, body) with its body re-indented, or
 *  undefined when there is nothing to re-indent. */
export function prettyMessage(message: string): string | undefined {
  const split = message.indexOf('\n\n');
  if (split < 0) return undefined;
  const pretty = prettyBody(message.slice(split + 2));
  return pretty === undefined ? undefined : `${message.slice(0, split + 2)}${pretty}\n`;
}
