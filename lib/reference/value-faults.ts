// Value faults: conformant in type, different in value. Each changes the data the reference serves
// (before either serialiser sees it, so JSON and SOAP answers carry the same change) and declares the
// contract paths where a differential run must find it, per wire. None fails a conformance check
// (breaks: [], held to that by test/value-faults.test.ts); as faults they obey --fault-rate.
// Also RANDOM_TOKENS: every answer carries fresh credential values, as a deployment that issues
// tokens per login does; a differential run must see that as noise only.
import { randomBytes } from 'node:crypto';
import { UserDetails } from '../contract/records.js';
import type { JsonObject, JsonValue } from '../json/value.js';
import type { Variant } from './profile.js';
import type { Fault } from './variants.js';

export interface ValueFault extends Fault {
  /** Contract paths (members by JSON name, [] for items, {} for map entries) where it shows, per wire. */
  readonly paths: { readonly json: readonly string[]; readonly soap: readonly string[] };
}

type Edit = (value: JsonValue | undefined) => JsonValue | undefined;

/** A fault editing one member of the user-details record (the login and the SOAP logout answer). */
const onUserDetails = (name: string, description: string, member: string, edit: Edit, soap = true): ValueFault => ({
  name, description, breaks: [],
  paths: { json: [member], soap: soap ? [member] : [] },
  editData: (data, record) => {
    if (record !== 'userDetails') return data;
    const next = edit(data[member]);
    return next === undefined ? data : { ...data, [member]: next };
  },
});

const DATETIME = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})\.(\d{7})$/;

/** A JSON datetime moved by `ms`, its fraction kept; moved the other way where it would leave .NET's
 *  range (years 1-9999), so the fault never makes a value of the wrong type. */
const shifted = (ms: number): Edit => (v) => {
  const m = typeof v === 'string' ? DATETIME.exec(v) : null;
  if (!m) return undefined;
  const at = (delta: number) => {
    const d = new Date(`${m[1]}Z`);
    d.setTime(d.getTime() + delta);
    return d;
  };
  const year = (d: Date) => d.getUTCFullYear();
  const moved = year(at(ms)) >= 1 && year(at(ms)) <= 9999 ? at(ms) : at(-ms);
  return `${moved.toISOString().slice(0, 19)}.${m[2]}`;
};

const HOUR = 3_600_000;

export const VALUE_FAULTS: readonly ValueFault[] = [
  onUserDetails('datetime-shifted-hour', 'createdDate is an hour later (a time-zone conversion)', 'createdDate', shifted(HOUR)),
  onUserDetails('datetime-shifted-day', 'birthDate is a day later (a date stored at local midnight)', 'birthDate', shifted(24 * HOUR)),
  // SOAP carries no fraction (section 2), so there the fault cannot show: declared for JSON only.
  onUserDetails('fraction-truncated', 'modifiedDate loses its fractional seconds', 'modifiedDate',
    (v) => (typeof v === 'string' && DATETIME.test(v) && !v.endsWith('.0000000') ? `${v.slice(0, 19)}.0000000` : undefined), false),
  onUserDetails('string-cut-short', 'businessName is cut to 20 characters (a narrower column)', 'businessName',
    (v) => (typeof v === 'string' && [...v].length > 20 ? [...v].slice(0, 20).join('') : undefined)),
  onUserDetails('string-trimmed', 'mailAddress has its surrounding whitespace trimmed', 'mailAddress',
    (v) => (typeof v === 'string' && v.trim() !== v ? v.trim() : undefined)),
  onUserDetails('string-upper-cased', 'city is written in capitals', 'city',
    (v) => (typeof v === 'string' && v.toUpperCase() !== v ? v.toUpperCase() : undefined)),
  onUserDetails('role-dropped', 'the last of the roles is missing', 'roles',
    (v) => (Array.isArray(v) && v.length ? v.slice(0, -1) : undefined)),
  onUserDetails('array-reordered', 'permissions come in reverse order', 'permissions',
    (v) => (Array.isArray(v) && new Set(v.map((x) => JSON.stringify(x))).size > 1 ? [...v].reverse() : undefined)),
  onUserDetails('boolean-flipped', 'isEulaAgreed is the opposite', 'isEulaAgreed', (v) => (typeof v === 'boolean' ? !v : undefined)),
  onUserDetails('null-as-empty-string', 'a null address2 is written as an empty string', 'address2', (v) => (v === null || v === undefined ? '' : undefined)),
  onUserDetails('null-as-empty-array', 'a null possibleLoginTypes is written as an empty array', 'possibleLoginTypes', (v) => (v === null || v === undefined ? [] : undefined)),
  onUserDetails('map-entry-missing', 'the first providerPaymentSettings entry is missing', 'providerPaymentSettings', (v) => {
    if (!v || typeof v !== 'object' || Array.isArray(v)) return undefined;
    const keys = Object.keys(v);
    return keys.length ? Object.fromEntries(Object.entries(v).slice(1)) as JsonObject : undefined;
  }),
];

/** The user-details members that carry credentials, from the contract (sensitivity 'credential'). */
const CREDENTIAL_MEMBERS = UserDetails.fields.filter((f) => f.sensitivity === 'credential').map((f) => f.json);

/** A fresh value of the same length and alphabet class (a token per answer). */
const fresh = (old: string): string => randomBytes(Math.ceil((old.length * 3) / 4) + 1).toString('base64url').slice(0, Math.max(old.length, 8));

/** Every credential of every answer freshly random (a style, not a fault: it breaks nothing). Every
 *  answer: editData runs once for the cached sample records, so the draw is made where the reply
 *  is written, from the reply's own record members. */
export const RANDOM_TOKENS: Variant = {
  name: 'random-tokens',
  description: `every answer carries fresh random credential values (${CREDENTIAL_MEMBERS.join(', ')})`,
  editReply: (reply) => {
    if (reply.status !== 200) return reply;
    const body = typeof reply.body === 'string' ? reply.body : reply.body.toString('utf8');
    let out = body;
    for (const name of CREDENTIAL_MEMBERS) {
      const soapName = UserDetails.fields.find((f) => f.json === name)!.soap;
      // JSON: "name": "…"; XML: <prefix:Name>…</prefix:Name> (text or CDATA: the whole content).
      out = out.replace(new RegExp(`("${name}"\\s*:\\s*)"((?:[^"\\\\]|\\\\.)*)"`, 'g'), (_m, head: string, v: string) => `${head}"${fresh(v)}"`);
      out = out.replace(new RegExp(`(<(?:[\\w.-]+:)?${soapName}>)([^<]*)(</(?:[\\w.-]+:)?${soapName}>)`, 'g'), (_m, open: string, v: string, close: string) => `${open}${fresh(v)}${close}`);
    }
    return out === body ? reply : { ...reply, body: out };
  },
};
