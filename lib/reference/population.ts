// The reference's population: every account (a request's identifying values) gets its own record,
// derived deterministically from the request, so a run over thousands of accounts meets what a real
// deployment holds: null birth dates, empty and large collections, year 1, 1896 and 9999, int32's
// edges, every day name, strings with markup and other scripts, and now and then an enum value the
// spec never showed. Every record is conformant: a fault, not the population, breaks rules.
// The sample account (an empty request, the harness's sample values, or the fixture's own user) is
// answered with the fixture records, so golden recordings stay fixed.
import { exampleRecord } from '../contract/examples.js';
import { DAY_NAMES } from '../contract/records.js';
import { INT32_MAX, INT32_MIN } from '../contract/formats.js';
import type { JsonOperation } from '../contract/operations.js';
import { fieldsOn, type Field, type FieldType, type Shape } from '../contract/types.js';
import type { JsonObject, JsonValue } from '../json/value.js';

/** A small deterministic generator (mulberry32) seeded from a string (FNV-1a). */
export class Seeded {
  private state: number;

  constructor(seed: string) {
    let h = 0x811c9dc5;
    for (let i = 0; i < seed.length; i++) h = Math.imul(h ^ seed.charCodeAt(i), 0x01000193);
    this.state = h >>> 0;
  }

  /** A number in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }
}

/** The identity of an account: its request's values, in a stable order. */
export const accountKey = (op: JsonOperation, dto: JsonObject): string =>
  `${op.key}:${JSON.stringify(op.request.fields.map((f) => dto[f.json] ?? null))}`;

/** The harness's sample request of each operation, built once (asked on every request). */
const sampleRequests = new Map<JsonOperation, JsonObject>();
const sampleRequest = (op: JsonOperation): JsonObject => {
  let r = sampleRequests.get(op);
  if (!r) sampleRequests.set(op, (r = exampleRecord(op.request)));
  return r;
};

/** The sample account: a request naming the fixture's user, or one with nothing identifying in it
 *  (every member absent, null, or the harness's sample value). */
export function isSampleAccount(op: JsonOperation, dto: JsonObject, fixtureUserName: string): boolean {
  if (dto.userName === fixtureUserName) return true;
  const sample = sampleRequest(op);
  return op.request.fields.every((f) => dto[f.json] === undefined || dto[f.json] === null || dto[f.json] === sample[f.json]);
}

const STRINGS = ['Zoë Ångström', 'Δημήτρης', '東京都', 'O\'Brien & Sons <Ltd>', 'a]]>b', 'tab\there', 'line\nbreak', '"quoted"', 'emoji 😀', ' padded '];
const UNSEEN_ENUM_NAMES = ['Provider', 'Sponsor', 'Other'];
const pad = (n: number, w = 2) => String(n).padStart(w, '0');

function datetime(r: Seeded): string {
  const edge = r.next();
  if (edge < 0.04) return '0001-01-01T00:00:00.0000000';
  if (edge < 0.08) return '9999-12-31T23:59:59.9999999';
  // Leap days, one of them before 1900 (itself no leap year): a date a naive formatter gets wrong.
  if (edge < 0.12) return `${r.pick([2000, 2024, 1896])}-02-29T12:00:00.0000000`;
  const year = r.int(1900, 2100);
  const month = r.int(1, 12);
  const day = r.int(1, 28);
  return `${pad(year, 4)}-${pad(month)}-${pad(day)}T${pad(r.int(0, 23))}:${pad(r.int(0, 59))}:${pad(r.int(0, 59))}.${pad(r.int(0, 9_999_999), 7)}`;
}

function integer(r: Seeded): number {
  const edge = r.next();
  if (edge < 0.03) return INT32_MIN;
  if (edge < 0.06) return INT32_MAX;
  if (edge < 0.1) return 0;
  return r.int(-1000, 1_000_000);
}

const TOKEN_CHARS = [...'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789'];
const token = (r: Seeded, n: number) => {
  let s = '';
  for (let i = 0; i < n; i++) s += r.pick(TOKEN_CHARS);
  return s;
};
const hex = (r: Seeded, n: number) => Array.from({ length: n }, () => r.int(0, 15).toString(16)).join('');

function stringFor(f: Field, r: Seeded, user: string): string {
  if (f.sensitivity === 'credential') return `${f.json}-${token(r, 24)}`;
  if (/email/i.test(f.json)) return `${user.replace(/[^A-Za-z0-9.]/g, '') || 'user'}.${token(r, 4)}@example.org`;
  if (r.chance(0.05)) return '';
  if (r.chance(0.03)) return 'x'.repeat(r.int(200, 600));
  // Short words: a member's whole name in a personal value would be learned as a secret, and every
  // report would mask that name wherever it appears (reporting/redact.ts, layer 3).
  return r.chance(0.3) ? r.pick(STRINGS) : `${f.json.slice(0, 4)} ${token(r, 6)}`;
}

function valueOf(f: Field, type: FieldType, r: Seeded, user: string): JsonValue {
  switch (type.kind) {
    case 'string': return stringFor(f, r, user);
    case 'integer': return integer(r);
    case 'boolean': return r.chance(0.5);
    case 'datetime': return datetime(r);
    case 'guid': return hex(r, 32);
    case 'enum': return type.closed ? r.pick(type.values) : r.chance(0.003) ? r.pick(UNSEEN_ENUM_NAMES) : r.pick(type.values);
    case 'array': {
      const n = r.chance(0.2) ? 0 : r.chance(0.05) ? r.int(40, 60) : r.int(1, 3);
      if (type.item.kind === 'enum' && type.item.closed) return DAY_NAMES.filter(() => r.chance(0.5)).slice(0, n);
      return Array.from({ length: n }, () => valueOf(f, type.item, r, user));
    }
    case 'object': return recordOf(type.shape, r, user);
    case 'map': {
      const n = r.chance(0.2) ? 0 : r.int(1, 4);
      return Object.fromEntries(Array.from({ length: n }, (_, i) => [`${1000 + i}`, recordOf(type.value, r, user)]));
    }
  }
}

function recordOf(shape: Shape, r: Seeded, user: string): JsonObject {
  const out: JsonObject = {};
  for (const f of fieldsOn(shape, 'json')) {
    // Reference types are null now and then (ServiceStack then omits them).
    out[f.json] = f.nullable && r.chance(0.08) ? null : valueOf(f, f.type, r, user);
  }
  return out;
}

/** The record an account's request is answered with: deterministic in the request's values. */
export function populationRecord(op: JsonOperation, dto: JsonObject): JsonObject {
  const r = new Seeded(accountKey(op, dto));
  const user = typeof dto.userName === 'string' ? dto.userName : typeof dto.verifyEmail === 'string' ? dto.verifyEmail.split('@')[0]! : token(r, 8);
  const record = recordOf(op.response, r, user);
  // The record describes the user who asked (where the request names one).
  if ('userName' in record && typeof dto.userName === 'string') record.userName = dto.userName;
  return record;
}

/** Whether an account is among the fraction a fault hits: deterministic per account. */
export const hitByFault = (key: string, rate: number): boolean => rate >= 1 || new Seeded(`fault:${key}`).next() < rate;
