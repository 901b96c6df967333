// A 200 JSON record judged from its bytes in one pass, without building its tree: for the common
// answer (an --accounts run's every login), a proof of what every check reading the record view
// (PROVEN_IDS) would find: nothing, or only a type check's findings of string values (an enum value
// the spec does not show, in about one login in forty of the reference's population), made as that
// check makes them; with the values the redactor's tree walk would learn, in its order. Any doubt
// gives undefined, and the checks and the learner take the tree path as before: a fall back is always
// correct, a wrong proof passes what a check should fail.
// How the brief was read: every name is one of its shape's JSON names, once; every value-type member is
// present and not null; every value's JSON kind is its type's (an object or array where the type wants
// another kind is doubted at once, not built to be refused); integers are plain literals of at most 15
// characters within int32; each value is judged by the type checks' own slot rules (json-types.ts),
// but where every rule of its kind is the contract's default and reads no more than the scan has
// established (TypeScan's stringUnread, containerUnread, passingTypeof), or where the rule of a
// datetime or guid passes a string read from its bytes, or an enum's is a name the contract lists that
// every rule passes (passingCodes); strings a rule reads (and
// values learned) decoded exactly as JSON.parse decodes them (escaped ones by JSON.parse itself), a
// value learned that is ASCII without escapes handed over as where it is in the bytes. A
// container (array, nested object, map) is built, small, only where a rule of its own reads it or one
// around it is built; the record's own scalars are not. test/fast-record.test.ts holds the proofs to
// today's checks, test/fast-record-own-rules.test.ts to a rule of its own. A type check finds in
// the order of the tree walk (walk-json.ts: each object's members in its shape's order), so findings
// are kept only where every object's members came in that order and no map put an array index first.
import { isUtf8 } from 'node:buffer';
import { BODY_LIMITS } from '../body-limits.js';
import { remembered } from '../detached.js';
import { isJsonOperation } from '../contract/classify.js';
import { INT32_MAX, INT32_MIN, isHexDigitCode } from '../contract/formats.js';
import { JSON_MEDIA_TYPE } from '../contract/operations.js';
import { sensitivityOfName } from '../contract/sensitivity.js';
import { fieldsOn, isValueType, perShape, type Field, type FieldType, type Sensitivity, type Shape } from '../contract/types.js';
import { JSON_CODES_PASS, type ValueRules } from '../contract/values.js';
import { mediaType } from '../http/media-type.js';
import { isArrayIndex, isBlank, MAX_INTEGER_LENGTH, MAX_MEMBERS, MAX_NAME, MAX_NODES, wordsOf } from '../json/plain-json.js';
import { index, member, ROOT } from '../json/path.js';
import type { JsonObject, JsonValue } from '../json/value.js';
import type { Check, Finding, Look } from './check.js';
import type { ExchangeView } from './exchange-view.js';
import { readsRecordView, settingsOnlyInOthers } from './json-record.js';
import { JSON_TYPE_SLOT_RULES, slotFinding, type TypeSlotRule } from './json-types.js';
import { typePlan, type TypePlan } from './walk-json.js';

/** A record proven to pass every check of PROVEN_IDS but for the type checks' findings it carries
 *  (findingsOf), and what the learner takes of it: every string and number under a member named as
 *  sensitive, in the tree walk's order (a number as String of its value), each with the strongest
 *  sensitivity of the names above it (credential over personal). Leaf
 *  `k` is the text of `bytes[spans[2k], spans[2k + 1])` (ASCII, no escapes) where spans[2k] is not
 *  negative, else leaves[k]: most are read where they are, not copied into strings. */
export class ProvenRecord {
  /** `findings`: by check id, what each type check finds (undefined when none finds anything). */
  constructor(readonly leaves: readonly string[], readonly leafKinds: readonly Sensitivity[], readonly bytes: Uint8Array, readonly spans: readonly number[],
    private readonly findings?: ReadonlyMap<string, readonly Finding[]>) {}

  /** Leaf `k` as a string (the learner's, where it cannot read the bytes). */
  leafText(k: number): string {
    const from = this.spans[2 * k]!;
    return from < 0 ? this.leaves[k]! : Buffer.from(this.bytes.buffer, this.bytes.byteOffset + from, this.spans[2 * k + 1]! - from).toString('latin1');
  }

  /** What the check of `id` finds in the record: new findings each time, as its judge makes them. */
  findingsOf(id: string): Finding[] {
    const found = this.findings?.get(id);
    return found ? found.map((f) => ({ ...f })) : [];
  }
}

/** The record checks built with overJson that a proof covers; with every type check's id (their slot
 *  rules are what the scan runs). A test holds this set to the checks whose judge reads the record view. */
export const PROVEN_IDS: ReadonlySet<string> = new Set([
  'JSON-VALUE-MEMBERS', 'JSON-MEMBER-NAMES', 'JSON-SETTINGS-ABSENT', 'JSON-UNKNOWN-MEMBERS', 'JSON-DUPLICATE-KEYS', 'JSON-INTEGER-RANGE',
  ...JSON_TYPE_SLOT_RULES.map((r) => r.id),
]);

/** The judges provenFast made. */
const PROVEN_JUDGES = new WeakSet<Check['judge']>();
export const isProvenJudge = (judge: Check['judge']): boolean => PROVEN_JUDGES.has(judge);

/** `check`, finding in a proven record at once what the proof found for it, when its id is declared
 *  proven and its judge reads the record view; else `check` as it is. */
export function provenFast(check: Check): Check {
  const inner = check.judge;
  if (!PROVEN_IDS.has(check.id) || !readsRecordView(inner)) return check;
  const { id } = check;
  const judge = (ex: ExchangeView): Look => provenRecord(ex)?.findingsOf(id) ?? inner(ex);
  PROVEN_JUDGES.add(judge);
  return { ...check, judge };
}

const MEMO = 'proven-record';

/** The exchange's proof, made once, or undefined (see the head of this file). */
export const provenRecord = (ex: ExchangeView): ProvenRecord | undefined => ex.once(MEMO, proveRecord);

/** The proof when a check has made it already (the run's learner reads it); never makes it. */
export const provenRecordMade = (ex: ExchangeView): ProvenRecord | undefined => ex.made<ProvenRecord | undefined>(MEMO);

/** Bodies past this are left to the tree path (parse.ts tries its plain path below the same size). */
const MAX_BODY = 256 * 1024;

function proveRecord(ex: ExchangeView): ProvenRecord | undefined {
  const op = ex.kind.operation;
  // A generated request's learning has scopes of its own values (redact.ts): the tree path's.
  if (!isJsonOperation(op) || ex.kind.jsonp || ex.origin?.source === 'generated' || !settingsOnlyInOthers(op)) return undefined;
  const r = ex.response();
  if (!r.ok || r.value.status !== 200 || mediaType(r.value.headers['content-type']) !== JSON_MEDIA_TYPE) return undefined;
  const body = ex.body();
  if (!body.ok || body.value.length > MAX_BODY) return undefined;
  return new Scan(body.value).record(op.response);
}

/** A type as the scan reads it: the walk's plan (its kind and what it holds), the type checks' rules
 *  that judge its values, and its items'. */
interface TypeScan {
  readonly walk: TypePlan;
  readonly valueType: boolean;
  readonly rules: readonly TypeSlotRule[];
  /** A string of it is judged by the default string rule alone (JSON_VALUE_RULES.string reads only
   *  typeof): a member not learned is scanned, not decoded. */
  readonly stringUnread: boolean;
  /** A container (array, object, map) judged by its kind's default rule alone: JSON_VALUE_RULES.array
   *  and .object read only that it is one, and .map that each value is null or an object, which the
   *  scan doubts otherwise. So it is scanned, not built (unless one around it is), and its rules are
   *  not asked: building them was a sixth of a proof's time and most of its allocation. */
  readonly containerUnread: boolean;
  /** For a string, integer or boolean type judged by its kind's default rule alone: the typeof of a
   *  value that rule passes as read by the scan (JSON_VALUE_RULES.string and .boolean read only
   *  typeof; .integer also the lexeme, Number.isInteger and int32, none of which a scanned integer
   *  fails without rules that ask for int32). Such a value's rules are not asked. */
  readonly passingTypeof: 'string' | 'number' | 'boolean' | undefined;
  /** For a kind whose rule reads a string's characters alone, judged by it alone (datetime, guid):
   *  whether it passes a plain ASCII string, read from its bytes (JSON_CODES_PASS); for an enum,
   *  whether the string is one of the listed names every rule passes (listedPassing). Such a string
   *  is decoded only to be refused. */
  readonly passingCodes: ((codes: Uint8Array, from: number, to: number) => boolean) | undefined;
  readonly item: TypeScan | undefined;
}
/** The rules a slot of a string, boolean, number or array is judged with (a map's are its listing). */
const NO_RULES: ValueRules = Object.freeze({});
/** TypeScan.passingTypeof of the kinds whose default rule reads no more than that. */
const DEFAULT_RULE_TYPEOF: Partial<Record<FieldType['kind'], 'string' | 'number' | 'boolean'>> = { string: 'string', integer: 'number', boolean: 'boolean' };
const typeScans = new WeakMap<FieldType, TypeScan>();
function typeScan(type: FieldType): TypeScan {
  let scan = typeScans.get(type);
  if (!scan) {
    const rules = JSON_TYPE_SLOT_RULES.filter((r) => r.kind === type.kind && (!r.applies || r.applies(type)));
    const defaultOnly = rules.every((r) => !r.custom);
    scan = {
      walk: typePlan(type), valueType: isValueType(type), rules, stringUnread: type.kind === 'string' && defaultOnly,
      containerUnread: (type.kind === 'array' || type.kind === 'object' || type.kind === 'map') && defaultOnly,
      passingTypeof: defaultOnly ? DEFAULT_RULE_TYPEOF[type.kind] : undefined,
      passingCodes: (defaultOnly ? JSON_CODES_PASS[type.kind] : undefined) ?? listedPassing(type, rules),
      item: type.kind === 'array' ? typeScan(type.item) : undefined,
    };
    typeScans.set(type, scan);
  }
  return scan;
}

/** Whether a JSON string of `s` is its characters between quotes, a byte each: printable ASCII but
 *  the quote and the backslash (STRING_CODE's PLAIN codes), as a shape's names and listed enum
 *  names are compared with the bytes. */
const writtenAsIs = (s: string): boolean => /^[\x20-\x7e]*$/.test(s) && !/["\\]/.test(s);

/** For an enum: passingCodes of the names its type lists that every rule of the slot passes, asked
 *  of each rule once here (a slot rule judges a string by it and its type alone: no lexeme, and
 *  NO_RULES as the scan passes). A string spelling one of them byte for byte is then passed unread
 *  (a dozen of a record's strings, where each was decoded and judged by three rules). */
function listedPassing(type: FieldType, rules: readonly TypeSlotRule[]): TypeScan['passingCodes'] {
  if (type.kind !== 'enum') return undefined;
  const names = type.values.filter((v) => writtenAsIs(v) && rules.every((r) => r.problem(v, undefined, type, NO_RULES) === undefined))
    .map((v) => Buffer.from(v, 'latin1'));
  if (!names.length) return undefined;
  return (codes, from, to) => {
    next: for (const name of names) {
      if (name.length !== to - from) continue;
      for (let k = 0; k < name.length; k++) if (codes[from + k] !== name[k]) continue next;
      return true;
    }
    return false;
  };
}

interface MemberScan {
  readonly name: string;
  readonly field: Field;
  /** Its token, the name between quotes, in 32-bit little-endian words of its bytes, each read at 4k
   *  from the opening quote but the last, read at the token's end - 4 (as plain-json.ts's names). */
  readonly words: Int32Array;
  readonly sensitivity: Sensitivity | undefined;
  readonly valueType: boolean;
  readonly plan: TypeScan;
}

/** A shape's JSON members; `usable` when their names are apart, no array index (Object.keys would list
 *  it first) and none a name Object.prototype answers. */
const shapeScan = perShape((shape) => {
  const members: MemberScan[] = fieldsOn(shape, 'json').map((f) => ({ name: f.json, field: f, words: wordsOf(`"${f.json}"`), sensitivity: sensitivityOfName(f.json), valueType: isValueType(f.type), plan: typeScan(f.type) }));
  const byName = new Map(members.map((m, k) => [m.name, k]));
  const usable = byName.size === members.length && members.every((m) => !/^[0-9]/.test(m.name) && !(m.name in Object.prototype) && writtenAsIs(m.name));
  // `seen`: per member, the number of the object that last held it (a name twice in one object is
  // found without a list per object); `open`: an object of the shape is being read (one nested in
  // another of its shape would share `seen`, so it is doubted).
  return { members, byName, usable, seen: new Float64Array(members.length), open: false };
});

/** Numbers the objects read, run-wide (a `seen` entry of an earlier object is below every later one). */
let objects = 0;

/** A map key's sensitivity (the tree walk asks sensitivityOfName of every name). */
const keySensitivity = remembered(sensitivityOfName, 4096, 64);

/** The stronger of two sensitivities on a value's way down: under a credential everything is hidden. */
const stronger = (a: Sensitivity | undefined, b: Sensitivity | undefined): Sensitivity | undefined =>
  (a === 'credential' || b === 'credential' ? 'credential' : a ?? b);

/** Members memberAt tries in turn from its guess before it reads the name whole. */
const GUESSES = 4;

class Doubt extends Error {}
const doubt = new Doubt();

/** The codes a string holds as themselves without a second look: printable ASCII but the quote and the backslash. */
const PLAIN = 1;
const STRING_CODE = new Uint8Array(256).map((_, c) => (c >= 0x20 && c < 0x80 && c !== 0x22 && c !== 0x5c ? PLAIN : 0));
/** The codes a backslash may stand before in JSON: " \ / b f n r t u. */
const ESCAPABLE = new Set([0x22, 0x5c, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74, 0x75]);

// A code past the end is undefined, which every comparison refuses, so the scans need no bound of their own.
class Scan {
  private i = 0;
  private depth = 0;
  private nodes = 0;
  private readonly leaves: string[] = [];
  private readonly leafKinds: Sensitivity[] = [];
  /** Per leaf, where its text is in the bytes, or -1, -1 (see ProvenRecord). */
  private readonly spans: number[] = [];
  /** Of the last string scanned: whether it held an escape, or a byte above 0x7F. */
  private escaped = false;
  private wide = false;

  private readonly view: DataView;
  /** The shapes whose objects were read (see shapeScan's `open`). */
  private readonly opened: { open: boolean }[] = [];
  /** By depth, where the value being read hangs: an object's member, an array's index, a map's key
   *  (a finding's path and field are read from it). */
  private readonly at: (MemberScan | number | string)[] = [];
  /** Whether an object's members came out of its shape's order (a type check's findings would not be
   *  in the scan's order). */
  private unordered = false;
  /** The type checks' findings of strings, by check id, in the scan's order. */
  private findings: Map<string, Finding[]> | undefined;
  private found = 0;

  /** The bytes as a plain Uint8Array: V8 reads one a fifth faster than a Buffer's. */
  private readonly b: Uint8Array;

  constructor(private readonly body: Buffer) {
    this.b = new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
    this.view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  }

  record(shape: Shape): ProvenRecord | undefined {
    try {
      if (this.next() !== 0x7b) return undefined;
      this.object(shape, false, undefined);
      if (this.next() !== undefined) return undefined;
      if (this.found > 0 && this.unordered) return undefined;
      return new ProvenRecord(this.leaves, this.leafKinds, this.b, this.spans, this.findings);
    } catch (e) {
      if (e === doubt) return undefined;
      throw e;
    } finally {
      for (const plan of this.opened) plan.open = false; // a doubt leaves objects open
    }
  }

  /** The code at the position after any whitespace. */
  private next(): number | undefined {
    const b = this.b;
    let i = this.i;
    let c = b[i];
    if (c! > 0x20) return c; // no whitespace before it: a compact text's every token
    while (isBlank(c)) c = b[++i];
    this.i = i;
    return c;
  }

  private open(): void {
    if (++this.depth > BODY_LIMITS.depth) throw doubt;
    this.i++;
  }

  /** At an opening quote: the position of the closing one, the string checked as JSON.parse checks it
   *  (`escaped` and `wide` said of it), a wide one's bytes as UTF-8. The text is checked so whole: a
   *  byte above 0x7F anywhere else is doubted (no token begins or goes on with one), and an ASCII
   *  byte ends any sequence, so its strings' bytes are UTF-8 just when all its bytes are. */
  private stringEnd(): number {
    const b = this.b;
    let i = this.i + 1;
    let escaped = false;
    let wide = false;
    for (;;) {
      // Plain ASCII codes by one lookup each: most of a record's bytes are in its strings.
      while (STRING_CODE[b[i]!] === PLAIN) i++;
      const c = b[i];
      if (c === 0x22) break;
      if (c === 0x5c) {
        const e = b[i + 1]!;
        if (!ESCAPABLE.has(e)) throw doubt;
        if (e === 0x75 && !(isHexDigitCode(b[i + 2]) && isHexDigitCode(b[i + 3]) && isHexDigitCode(b[i + 4]) && isHexDigitCode(b[i + 5]))) throw doubt;
        escaped = true;
        i += 2; // past the escaped code (a \u's digits are plain codes)
        continue;
      }
      if (!(c! >= 0x80)) throw doubt; // a control character, or the end (undefined)
      wide = true;
      i++;
    }
    if (wide && !isUtf8(b.subarray(this.i + 1, i))) throw doubt;
    this.escaped = escaped;
    this.wide = wide;
    return i;
  }

  /** The string from the opening quote at `q` to the closing one at `end`, as JSON.parse gives it
   *  (valid UTF-8: stringEnd checked it). Few are made: those a rule reads (not the values
   *  TypeScan passes from their codes) and those learned that are not plain ASCII. */
  private decoded(q: number, end: number): string {
    if (this.escaped) return JSON.parse(this.body.toString('utf8', q, end + 1)) as string;
    return this.body.toString(this.wide ? 'utf8' : 'latin1', q + 1, end);
  }

  private leaf(text: string, kind: Sensitivity): void {
    this.leaves.push(text);
    this.leafKinds.push(kind);
    this.spans.push(-1, -1);
  }

  /** A leaf read from the bytes: the string between the quotes at `q` and `end`, ASCII without escapes. */
  private spanLeaf(q: number, end: number, kind: Sensitivity): void {
    this.leaves.push('');
    this.leafKinds.push(kind);
    this.spans.push(q + 1, end);
  }

  /** At a member name's opening quote: its member's place in `members`, the one at `guess` and the
   *  few after it tried first (a record's names come in its shape's order, a member left out now and then). */
  private memberAt(members: readonly MemberScan[], byName: ReadonlyMap<string, number>, guess: number): number {
    const b = this.b;
    const from = this.i + 1;
    const tried = Math.min(members.length, guess + GUESSES);
    for (let k = guess; k < tried; k++) {
      const m = members[k]!;
      // The closing quote first, then the words (past the end, a word is not read: the quote is not there).
      if (b[from + m.name.length] === 0x22 && this.spells(from - 1, m)) { this.i = from + m.name.length + 1; return k; }
    }
    const end = this.stringEnd();
    if (this.escaped || end - from > MAX_NAME) throw doubt;
    // A name with a byte above 0x7F is no (ASCII) name of the shape in the Latin-1 reading either.
    const found = byName.get(this.body.toString('latin1', from, end));
    if (found === undefined) throw doubt; // no JSON member of the shape: a name check's to judge
    this.i = end + 1;
    return found;
  }

  /** Whether the token at `at` (its opening quote; its closing quote checked) is `m`'s name. */
  private spells(at: number, m: MemberScan): boolean {
    const words = m.words;
    const last = words.length - 1;
    if (last < 0) return m.name === '' || (m.name.length === 1 && this.b[at + 1] === m.name.charCodeAt(0));
    const view = this.view;
    for (let k = 0; k < last; k++) if (view.getInt32(at + 4 * k, true) !== words[k]) return false;
    return view.getInt32(at + m.name.length + 2 - 4, true) === words[last];
  }

  /** At '{': an object of `shape`, built when `build`; `tag` the sensitivity of the names above it. */
  private object(shape: Shape, build: boolean, tag: Sensitivity | undefined): JsonObject | undefined {
    const plan = shapeScan(shape);
    const { members, byName, seen } = plan;
    if (!plan.usable || plan.open) throw doubt;
    plan.open = true;
    this.opened.push(plan);
    this.open();
    const self = ++objects;
    const o: JsonObject | undefined = build ? {} : undefined;
    let c = this.next();
    if (c === 0x7d) this.i++;
    else {
      let guess = 0;
      for (let count = 1; ; count++) {
        if (c !== 0x22 || count > MAX_MEMBERS || ++this.nodes > MAX_NODES) throw doubt;
        const k = this.memberAt(members, byName, guess);
        if (seen[k] === self) throw doubt; // a key twice: JSON-DUPLICATE-KEYS's
        seen[k] = self;
        if (k < guess - 1) this.unordered = true; // guess - 1 is the member before (0 at the first)
        guess = k + 1;
        const m = members[k]!;
        this.at[this.depth] = m;
        if (this.next() !== 0x3a) throw doubt;
        this.i++;
        const v = this.slot(m.plan, build, stronger(tag, m.sensitivity), m.valueType);
        if (o !== undefined) o[m.name] = v;
        c = this.next();
        this.i++;
        if (c === 0x7d) break;
        if (c !== 0x2c) throw doubt;
        c = this.next();
      }
    }
    // A value-type member missing: JSON-VALUE-MEMBERS's (one null was doubted where read).
    for (let k = 0; k < members.length; k++) if (seen[k] !== self && members[k]!.valueType) throw doubt;
    plan.open = false;
    this.depth--;
    return o;
  }

  /** A member's value (`member`: whether a null is a value-type member's, doubted; else a null member
   *  is no slot) or an item's (`member` undefined: a null item is judged by the rules, as the walk
   *  makes it a slot). Built when `build` or read by a rule or the learner. */
  private slot(plan: TypeScan, build: boolean, tag: Sensitivity | undefined, member: boolean | undefined): JsonValue {
    const b = this.b;
    const c = this.next();
    if (++this.nodes > MAX_NODES) throw doubt;
    let value: JsonValue;
    let read = NO_RULES;
    if (c === 0x6e) {
      this.word('null');
      if (member === true) throw doubt;
      if (member === false) return null;
      value = null;
    } else if (c === 0x22) {
      const q = this.i;
      const end = this.stringEnd();
      this.i = end + 1;
      const plain = !this.escaped && !this.wide;
      if (tag !== undefined && plain) this.spanLeaf(q, end, tag);
      // Read by nothing else, or passed from its bytes: see TypeScan.
      if (!build && (tag === undefined || plain) && (plan.stringUnread || (plain && plan.passingCodes?.(b, q + 1, end) === true))) return null;
      value = this.decoded(q, end);
      if (tag !== undefined && !plain) this.leaf(value, tag);
    } else if (c === 0x7b) {
      const keep = build || !plan.containerUnread; // see TypeScan
      if (plan.walk.shape !== undefined) value = this.object(plan.walk.shape, keep, tag) ?? null;
      else if (plan.walk.mapValue !== undefined) {
        const keys: string[] | undefined = keep ? [] : undefined;
        value = this.map(plan.walk.mapValue, tag, keys) ?? null;
        // Its names as read, as the map check passes the exchange's listing (Object.keys of a map of
        // numbered keys cost as much as the rest of its rule).
        if (keys) read = { keysOf: () => keys };
      }
      else throw doubt;
      if (!keep) return null; // scanned, judged by what the scan doubts: see TypeScan
    } else if (c === 0x5b) {
      if (plan.item === undefined) throw doubt;
      const keep = build || !plan.containerUnread;
      value = this.array(plan.item, tag, keep);
      if (!keep) return null;
    } else if (c === 0x74) value = this.word('true');
    else if (c === 0x66) value = this.word('false');
    else {
      value = this.integer(b);
      // JSON-INTEGER-RANGE's: an integer slot's number outside int32.
      if (plan.walk.kind === 'integer' && (value < INT32_MIN || value > INT32_MAX)) throw doubt;
      if (tag !== undefined) this.leaf(String(value), tag);
    }
    if (typeof value === plan.passingTypeof) return value; // see TypeScan
    // Every type check of the slot's kind that applies to its type finds nothing, or doubt.
    // A string's problem is its check's finding (it reads no lexeme); any other value's is doubted.
    const rules = plan.rules;
    for (let k = 0; k < rules.length; k++) {
      const why = rules[k]!.problem(value, undefined, plan.walk.type, read);
      if (why === undefined) continue;
      if (typeof value !== 'string') throw doubt;
      this.finding(rules[k]!.id, value, why);
    }
    return value;
  }

  /** The finding of the check `id` in the string being read, as its loop makes it (json-types.ts). */
  private finding(id: string, value: string, why: string): void {
    let path = ROOT;
    let field: Field | undefined;
    for (let d = 1; d <= this.depth; d++) {
      const at = this.at[d]!;
      if (typeof at === 'number') path = index(path, at);
      else if (typeof at === 'string') path = member(path, at);
      else { path = member(path, at.name); field = at.field; }
    }
    const list = (this.findings ??= new Map()).get(id);
    const f = slotFinding(field!, value, undefined, why, path);
    if (list) list.push(f);
    else this.findings.set(id, [f]);
    this.found++;
  }

  /** At the first letter of true, false or null: its value. */
  private word(w: 'true' | 'false' | 'null'): boolean | null {
    const b = this.b;
    const i = this.i;
    for (let k = 1; k < w.length; k++) if (b[i + k] !== w.charCodeAt(k)) throw doubt;
    this.i += w.length;
    return w === 'null' ? null : w === 'true';
  }

  /** -?(0|[1-9][0-9]*) of at most 15 characters, no fraction or exponent after it: its value (exact). */
  private integer(b: Uint8Array): number {
    const start = this.i;
    let i = start;
    let c = b[i];
    const negative = c === 0x2d;
    if (negative) c = b[++i];
    let n = 0;
    if (c === 0x30) c = b[++i];
    else if (c !== undefined && c >= 0x31 && c <= 0x39) {
      do { n = n * 10 + (c - 0x30); c = b[++i]; } while (c !== undefined && c >= 0x30 && c <= 0x39);
    } else throw doubt;
    if (c === 0x2e || c === 0x65 || c === 0x45 || (c !== undefined && c >= 0x30 && c <= 0x39) || i - start > MAX_INTEGER_LENGTH) throw doubt;
    this.i = i;
    return negative ? -n : n;
  }

  /** At '[': the items, each judged as a slot of `item`; built when `build` (else an empty array). */
  private array(item: TypeScan, tag: Sensitivity | undefined, build: boolean): JsonValue[] {
    this.open();
    const a: JsonValue[] = [];
    if (this.next() === 0x5d) { this.i++; this.depth--; return a; }
    for (let count = 1; ; count++) {
      if (count > MAX_MEMBERS) throw doubt;
      this.at[this.depth] = count - 1;
      const v = this.slot(item, build, tag, undefined);
      if (build) a.push(v);
      const c = this.next();
      this.i++;
      if (c === 0x2c) continue;
      if (c === 0x5d) { this.depth--; return a; }
      throw doubt;
    }
  }

  /** At '{' of a map: each value null or an object of `shape` (else the map rule's; doubted), keys
   *  decoded as JSON.parse decodes them; built, its keys pushed to `keys`, when `keys` is given. */
  private map(shape: Shape, tag: Sensitivity | undefined, keys: string[] | undefined): JsonObject | undefined {
    this.open();
    // Built when its keys are to be listed; else its names are kept apart only to find one twice.
    const o: JsonObject | undefined = keys ? {} : undefined;
    const names = o ? undefined : new Set<string>();
    const leavesBefore = this.leaves.length;
    const foundBefore = this.found;
    let indexKey = false;
    let c = this.next();
    if (c === 0x7d) { this.i++; this.depth--; return o; }
    for (let count = 1; ; count++) {
      if (c !== 0x22 || count > MAX_MEMBERS || ++this.nodes > MAX_NODES) throw doubt;
      const q = this.i;
      const end = this.stringEnd();
      if (end + 1 - q > MAX_NAME) throw doubt;
      const key = this.decoded(q, end);
      this.i = end + 1;
      // __proto__ and its like are built otherwise by JSON.parse; a key twice is JSON-DUPLICATE-KEYS's.
      if (key in Object.prototype || (o ? Object.hasOwn(o, key) : names!.has(key))) throw doubt;
      if (isArrayIndex(key)) indexKey = true;
      if (o) keys!.push(key);
      else names!.add(key);
      this.at[this.depth] = key;
      if (this.next() !== 0x3a) throw doubt;
      this.i++;
      const v = this.next();
      if (++this.nodes > MAX_NODES) throw doubt;
      let x: JsonValue;
      if (v === 0x6e) x = this.word('null');
      else if (v === 0x7b) x = this.object(shape, o !== undefined, stronger(tag, keySensitivity(key)))!;
      else throw doubt;
      if (o) o[key] = x;
      c = this.next();
      this.i++;
      if (c === 0x7d) break;
      if (c !== 0x2c) throw doubt;
      c = this.next();
    }
    // Object.keys lists an array index first: the learner's and the checks' order would not be the text's.
    if (indexKey && (this.leaves.length > leavesBefore || this.found > foundBefore)) throw doubt;
    this.depth--;
    return o;
  }
}
