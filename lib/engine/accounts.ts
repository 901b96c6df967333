// Accounts: one case per line, each holding the request values of one or both JSON operations, keyed
// by request name. JSON Lines:
//   {"SupportStateUserLoginRequest":{"userName":"a","searchValues":"x"},"ConfirmEmailRequest":{…}}
// or CSV whose headers are Request.field (SupportStateUserLoginRequest.userName, …), an empty cell
// leaving the member out. The file is read twice, both times as a stream: first to validate every
// line (a bad one stops the run before anything is sent, naming the line and the field, never the
// value), then lazily, as the engine asks for the next case, so memory does not grow with the file.
// Bytes that are not UTF-8 and keys given twice are refused like any bad line: decoding would send
// U+FFFD in place of the account's own bytes, and a repeated key would silently pick one value.
// Values are sent as written: a JSON line's record is sent as its own text, byte for byte (JSON.stringify
// of the parsed value would write -0 as 0, \u00e9 as é, \/ as /), and a CSV integer cell as its
// lexeme. What the contract cannot carry as written is refused, never rewritten: an integer (ownerId)
// must be an int32 written as an integer literal, no fraction or exponent (2.2 "integer", read as
// REQ-JSON-TYPES reads a client's request: `1.0` or `1e2` would make the harness the faulty client).
// No account value is ever written in XML: the one SOAP operation (4.2, ImpersonateLogoutRequest) has
// no fields, and a line cannot name it.
import { isUtf8 } from 'node:buffer';
import { createReadStream, statSync } from 'node:fs';
import { Readable } from 'node:stream';
import { operationNamed, type JsonOperation } from '../contract/operations.js';
import { jsonValueProblem, valueFromText } from '../contract/values.js';
import type { ExchangeSpec, Origin } from '../http/exchange.js';
import { memberTexts } from '../json/member-texts.js';
import { parseJson } from '../json/parse.js';
import { member, ROOT } from '../json/path.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../json/value.js';
import { cutAtEnd, firstIllFormed } from '../json/utf8.js';
import { jsonPostHeaders, jsonRequest } from './probes.js';

/** One account: its line in the file, its request values per operation, and each request's body as
 *  the file wrote it (a JSON line's record text; a CSV row's cells written as a JSON object). */
export interface AccountCase {
  readonly line: number;
  readonly requests: ReadonlyMap<JsonOperation, JsonObject>;
  readonly bodies: ReadonlyMap<JsonOperation, string>;
}

export type CaseOrError = AccountCase | { readonly line: number; readonly error: string };

/** A line longer than this is no account. */
const MAX_LINE = 1024 * 1024;

const isCsv = (file: string) => /\.csv$/i.test(file);

function jsonOperationNamed(name: string): JsonOperation | string {
  const op = operationNamed(name);
  if (op?.wire === 'json') return op;
  return `unknown request ${JSON.stringify(name.slice(0, 80))} (expected SupportStateUserLoginRequest or ConfirmEmailRequest)`;
}

type Field = JsonOperation['request']['fields'][number];
/** Each operation's request fields by JSON name, made at the first line that names the operation. */
const FIELDS = new Map<JsonOperation, ReadonlyMap<string, Field>>();
const fieldsOf = (op: JsonOperation): ReadonlyMap<string, Field> => {
  let fields = FIELDS.get(op);
  if (!fields) {
    const byName = new Map<string, Field>();
    for (const f of op.request.fields) if (!byName.has(f.json)) byName.set(f.json, f); // the first, as find() gives
    FIELDS.set(op, (fields = byName));
  }
  return fields;
};

/** A request's values, checked field by field against 2.2 (types only: which are required is not shown). */
function checkRecord(op: JsonOperation, record: JsonValue, numbers: ReadonlyMap<string, string>): string | undefined {
  if (!isJsonObject(record)) return `${op.name} must be a JSON object`;
  const fields = fieldsOf(op);
  for (const name in record) {
    const value = record[name]!;
    const f = fields.get(name);
    if (!f) return `${op.name}.${name.slice(0, 80)} is not a field of ${op.name}`;
    // A number's lexeme, when it is not a plain integer literal (1.0, 1e2): judged as written.
    const lexeme = typeof value === 'number' && numbers.size ? numbers.get(member(member(ROOT, op.name), name)) : undefined;
    const problem = value === null ? (f.nullable ? undefined : 'expected a value, not null') : jsonValueProblem(f.type, value, { int32: true, ...(lexeme !== undefined ? { lexeme } : {}) });
    if (problem) return `${op.name}.${name}: ${problem}`;
  }
  return undefined;
}

/** A JSON line's case: its bodies are cut from the line when asked (as requests go out), not when
 *  the file is checked. */
class JsonLineCase implements AccountCase {
  constructor(readonly line: number, readonly requests: ReadonlyMap<JsonOperation, JsonObject>, private readonly text: string) {}

  get bodies(): ReadonlyMap<JsonOperation, string> {
    const texts = memberTexts(this.text);
    return new Map([...this.requests.keys()].map((op) => [op, texts.get(op.name)!]));
  }
}

function caseFromJsonLine(text: string, line: number): CaseOrError | undefined {
  if (!text.trim()) return undefined; // blank lines separate nothing
  const parsed = parseJson(text);
  if (!parsed.ok) {
    const syntax = /^not valid JSON: (.*)$/s.exec(parsed.error);
    return { line, error: syntax ? `not valid JSON (${syntax[1]!.replace(/offset (\d+)$/, (_m, n: string) => `column ${Number(n) + 1}`)})` : parsed.error };
  }
  const twice = parsed.json.duplicateKeys[0];
  if (twice !== undefined) return { line, error: `key ${twice.slice(0, 120)} appears twice (which would win?)` };
  const { value } = parsed.json;
  if (!isJsonObject(value)) return { line, error: 'a line must be a JSON object keyed by request name' };
  const requests = new Map<JsonOperation, JsonObject>();
  for (const name in value) {
    const record = value[name]!;
    const op = jsonOperationNamed(name);
    if (typeof op === 'string') return { line, error: op };
    const problem = checkRecord(op, record, parsed.json.numbers);
    if (problem) return { line, error: problem };
    requests.set(op, record as JsonObject);
  }
  if (!requests.size) return { line, error: 'the line holds no request' };
  return new JsonLineCase(line, requests, text);
}

/** Bytes that are not UTF-8: the line (1-based) and the byte offset in that line (0-based) where the
 *  first ill-formed sequence starts. */
export class NotUtf8 extends Error {
  constructor(readonly line: number, readonly offset: number) { super(`not valid UTF-8 at byte offset ${offset} of the line`); }
}

/** The file's bytes, in chunks that each end on a character boundary; throws NotUtf8 at the first
 *  ill-formed sequence, naming its line and offset there. */
async function* utf8Chunks(file: string): AsyncGenerator<Buffer> {
  let line = 1;
  let lineStart = 0; // the current line's first byte, counted from the file's start
  let read = 0; // bytes before `pending`
  let pending = Buffer.alloc(0);
  const fail = (bytes: Buffer, at: number): never => {
    for (let nl = bytes.indexOf(10); nl >= 0 && nl < at; nl = bytes.indexOf(10, nl + 1)) { line++; lineStart = read + nl + 1; }
    throw new NotUtf8(line, read + at - lineStart);
  };
  const advance = (bytes: Buffer) => {
    for (let nl = bytes.indexOf(10); nl >= 0; nl = bytes.indexOf(10, nl + 1)) { line++; lineStart = read + nl + 1; }
    read += bytes.length;
  };
  for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
    const bytes = pending.length ? Buffer.concat([pending, chunk]) : chunk;
    // Native checks first; the byte-by-byte scan only where the bytes are not UTF-8.
    const cut = cutAtEnd(bytes);
    const bad = isUtf8(bytes.subarray(0, bytes.length - cut)) ? { at: bytes.length - cut, cut: true } : firstIllFormed(bytes);
    if (bad && !bad.cut) fail(bytes, bad.at);
    const whole = bytes.subarray(0, bad?.at ?? bytes.length);
    pending = Buffer.from(bytes.subarray(whole.length));
    advance(whole);
    if (whole.length) yield whole;
  }
  if (pending.length) fail(pending, 0);
}

type Line = { readonly line: number; readonly text: string } | { readonly line: number; readonly tooLong: true };

/** A line's text without the CR of a CRLF ending. */
const withoutCr = (parts: readonly string[]): string => {
  const text = parts.length === 1 ? parts[0]! : parts.join('');
  return text.charCodeAt(text.length - 1) === 13 ? text.slice(0, -1) : text;
};

/** Cuts text into lines as it comes, each at most MAX_LINE characters held: a longer line is reported
 *  as too long (and skipped) without ever being held whole. A byte-order mark at the start is dropped. */
class LineCutter {
  private n = 1;
  private parts: string[] = [];
  private held = 0;
  private tooLong = false;
  private first = true;

  /** The lines that `chunk` (whole characters) completes, in order. */
  cut(chunk: string): Line[] {
    const out: Line[] = [];
    const text = this.first && chunk.startsWith('\ufeff') ? chunk.slice(1) : chunk;
    this.first = false;
    for (let from = 0; from < text.length;) {
      const nl = text.indexOf('\n', from);
      if (!this.tooLong) {
        const piece = nl < 0 ? text.slice(from) : text.slice(from, nl);
        this.held += piece.length;
        if (this.held > MAX_LINE) { this.tooLong = true; this.parts = []; } else this.parts.push(piece);
      }
      if (nl < 0) break;
      out.push(this.tooLong ? { line: this.n, tooLong: true } : { line: this.n, text: withoutCr(this.parts) });
      this.n++; this.parts = []; this.held = 0; this.tooLong = false;
      from = nl + 1;
    }
    return out;
  }

  /** The last line, when the text does not end with a line break. */
  end(): Line[] {
    if (this.tooLong) return [{ line: this.n, tooLong: true }];
    return this.held ? [{ line: this.n, text: withoutCr(this.parts) }] : [];
  }
}

/** The lines of a file as a stream, a chunk's lines at a time (one step of the stream per chunk, not
 *  per line), each at most MAX_LINE characters held (readline would buffer a 1 GB line before anything
 *  could refuse it). Bytes that are not UTF-8 throw NotUtf8. */
async function* lineBatches(file: string): AsyncGenerator<readonly Line[]> {
  const cutter = new LineCutter();
  for await (const bytes of utf8Chunks(file)) {
    const lines = cutter.cut(bytes.toString('utf8')); // whole characters: utf8Chunks cuts on their boundaries
    if (lines.length) yield lines;
  }
  const last = cutter.end();
  if (last.length) yield last;
}

/** The lines of a file as a stream, each at most MAX_LINE characters held: a longer line is reported
 *  as too long (and skipped) without ever being held whole, whatever it holds. A byte-order mark at
 *  the start is dropped. Bytes that are not UTF-8 throw NotUtf8. */
export async function* boundedLines(file: string): AsyncGenerator<Line> {
  for await (const lines of lineBatches(file)) for (const l of lines) yield l;
}

/** The cases of a JSON Lines file, a chunk's lines at a time. */
async function* jsonCaseBatches(file: string): AsyncGenerator<readonly CaseOrError[]> {
  try {
    for await (const lines of lineBatches(file)) {
      const cases: CaseOrError[] = [];
      for (const l of lines) {
        const c = 'tooLong' in l ? { line: l.line, error: `the line is longer than ${MAX_LINE / 1024 / 1024} MiB` } : caseFromJsonLine(l.text, l.line);
        if (c) cases.push(c);
      }
      if (cases.length) yield cases;
    }
  } catch (e) {
    if (!(e instanceof NotUtf8)) throw e;
    yield [{ line: e.line, error: e.message }];
  }
}

/** What csv-parse's error codes mean, in words that quote nothing. */
const CSV_PROBLEMS: Readonly<Record<string, string>> = {
  CSV_INVALID_CLOSING_QUOTE: 'a quote inside a field that is not quoted',
  CSV_QUOTE_NOT_CLOSED: 'a quoted field is never closed',
  CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE: 'characters after a closing quote',
  CSV_RECORD_INCONSISTENT_FIELDS_LENGTH: 'the row has another number of fields than the header',
  CSV_RECORD_INCONSISTENT_COLUMNS: 'the row has another number of fields than the header',
  INVALID_OPENING_QUOTE: 'a quote inside a field that is not quoted',
  CSV_MAX_RECORD_SIZE: `the row is longer than ${MAX_LINE / 1024 / 1024} MiB`,
};

/** csv-parse's codes of a row with another number of fields than the header. */
const CSV_LENGTH: ReadonlySet<string> = new Set(['CSV_RECORD_INCONSISTENT_FIELDS_LENGTH', 'CSV_RECORD_INCONSISTENT_COLUMNS']);
const fields = (n: number) => `${n} field${n === 1 ? '' : 's'}`;

/** CSV column: Request.field, resolved once from the header row. */
type Column = { readonly op: JsonOperation; readonly field: JsonOperation['request']['fields'][number] } | { readonly error: string };

function columnOf(header: string): Column {
  const dot = header.indexOf('.');
  if (dot < 0) return { error: `column ${JSON.stringify(header.slice(0, 80))} is not Request.field` };
  const op = jsonOperationNamed(header.slice(0, dot));
  if (typeof op === 'string') return { error: `column ${JSON.stringify(header.slice(0, 80))}: ${op}` };
  const field = op.request.fields.find((f) => f.json === header.slice(dot + 1));
  return field ? { op, field } : { error: `column ${JSON.stringify(header.slice(0, 80))}: not a field of ${op.name}` };
}

async function* csvRows(file: string): AsyncGenerator<CaseOrError> {
  // Loaded for a CSV file only: every other run starts without it.
  const { parse: parseCsv } = await import('csv-parse');
  // Each row ends with its own line break (CRLF, LF or CR): detected from the first row alone, an LF
  // header left a CRLF row's CR in its last cell, sent as part of the account's value.
  const parser = parseCsv({ bom: true, info: true, relax_column_count: false, skip_empty_lines: true, max_record_size: MAX_LINE, record_delimiter: ['\r\n', '\n', '\r'] });
  const source = Readable.from(utf8Chunks(file), { objectMode: false });
  source.on('error', (e) => parser.destroy(e));
  source.pipe(parser);
  let columns: Column[] | undefined;
  // csv-parse (7.0.3) says the line a row ends on, and counts a CRLF inside a quoted cell as two
  // lines: every later row's number was one too high per such cell, and replay.sh asked for the
  // values of another account's line. A row is named by the line it starts on.
  let crlfInCells = 0;
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      let breaks = 0;
      for (const cell of record) {
        if (!cell.includes('\n') && !cell.includes('\r')) continue;
        const crlf = cell.match(/\r\n/g)?.length ?? 0;
        crlfInCells += crlf;
        breaks += (cell.match(/\r\n|\r|\n/g)?.length ?? 0);
      }
      const line = info.lines - crlfInCells - breaks;
      if (!columns) {
        columns = record.map(columnOf);
        const bad = columns.find((c): c is { error: string } => 'error' in c);
        if (bad) { yield { line, error: bad.error }; return; }
        const twice = record.find((h, i) => record.indexOf(h) !== i);
        if (twice !== undefined) { yield { line, error: `column ${JSON.stringify(twice.slice(0, 80))} appears twice (which would win?)` }; return; }
        continue;
      }
      const requests = new Map<JsonOperation, JsonObject>();
      const members = new Map<JsonOperation, string[]>();
      let error: string | undefined;
      record.forEach((cell, i) => {
        const col = columns![i] as Exclude<Column, { error: string }>;
        if (error || cell === '') return;
        const typed = valueFromText(col.field.type, cell);
        if ('problem' in typed) { error = `${col.op.name}.${col.field.json} ${typed.problem}`; return; }
        const rec = requests.get(col.op) ?? {};
        rec[col.field.json] = typed.value;
        requests.set(col.op, rec);
        // The body writes the cell as it is: an integer or boolean as its own lexeme (-0 stays -0), a
        // string as the JSON string of its text.
        const written = typeof typed.value === 'string' ? JSON.stringify(cell) : cell;
        const list = members.get(col.op) ?? [];
        list.push(`${JSON.stringify(col.field.json)}:${written}`);
        members.set(col.op, list);
      });
      if (error) yield { line, error };
      else if (!requests.size) yield { line, error: 'the row holds no value' };
      else yield { line, requests, bodies: new Map([...members].map(([op, list]) => [op, `{${list.join(',')}}`])) };
    }
  } catch (e) {
    if (e instanceof NotUtf8) { yield { line: e.line, error: e.message }; return; }
    // csv-parse's messages quote the offending value (a cell may be a secret): only its code is shown.
    const err = e as { lines?: number; code?: string; index?: number; record?: unknown };
    // A row of another length: its count beside the header's (csv-parse's index is then the row's
    // length, a field past its last); any other defect: the field it lies in.
    if (CSV_LENGTH.has(err.code ?? '') && Array.isArray(err.record) && columns) {
      yield { line: (err.lines ?? 0) - crlfInCells, error: `not valid CSV: the row has ${fields(err.record.length)} where the header has ${columns.length}` };
      return;
    }
    const field = err.index !== undefined ? ` (field ${err.index + 1})` : '';
    yield { line: (err.lines ?? 0) - crlfInCells, error: `not valid CSV: ${CSV_PROBLEMS[err.code ?? ''] ?? `unreadable (${err.code ?? 'unknown error'})`}${field}` };
  }
}

/** One at a time, as batches of one (CSV rows come from csv-parse one by one). */
async function* singly<T>(items: AsyncIterable<T>): AsyncGenerator<readonly T[]> {
  for await (const item of items) yield [item];
}

/** Every case of the file, in order (errors included, as cases that carry one), in batches. */
const caseBatches = (file: string): AsyncGenerator<readonly CaseOrError[]> => (isCsv(file) ? singly(csvRows(file)) : jsonCaseBatches(file));

/** Every case of the file, in order (errors included, as cases that carry one). */
export async function* readCases(file: string): AsyncGenerator<CaseOrError> {
  for await (const cases of caseBatches(file)) for (const c of cases) yield c;
}

/** Reads the whole file once: the number of cases, or the first bad line as one line of text. */
export async function validateAccounts(file: string): Promise<{ readonly cases: number } | { readonly error: string }> {
  let cases = 0;
  try {
    // Read twice (checked whole, then streamed as requests go out): a pipe would be empty the second time.
    if (!statSync(file).isFile()) return { error: `${file} is not a regular file: the accounts are read twice (checked whole before anything is sent, then streamed), so write them to a file first` };
    for await (const batch of caseBatches(file)) {
      for (const c of batch) {
        if ('error' in c) return { error: `${file} line ${c.line}: ${c.error}` };
        cases++;
      }
    }
  } catch (e) {
    return { error: `cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` };
  }
  return cases ? { cases } : { error: `${file} holds no account` };
}

/** The requests of every case in this shard (every `count`-th case, from the `index`-th), lazily. All
 *  share one headers object (nothing changes a request's headers once made). */
export async function* accountRequests(
  file: string, extraHeaders: Readonly<Record<string, string>>, shard: { readonly index: number; readonly count: number } = { index: 1, count: 1 },
): AsyncGenerator<ExchangeSpec> {
  const headers = jsonPostHeaders(extraHeaders);
  let k = 0;
  for await (const batch of caseBatches(file)) {
    for (const c of batch) {
      if ('error' in c) continue; // validated before the run: a file changed under the run loses nothing else
      if (k++ % shard.count !== shard.index - 1) continue;
      const origin: Origin = { source: 'case', vouched: true, case: c.line };
      for (const [op, body] of c.bodies) {
        yield jsonRequest(`case-${c.line}.${op.key}`, `case ${c.line}: POST ${op.route}`, op.route, body, origin, headers);
      }
    }
  }
}
