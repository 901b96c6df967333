// The proof (lib/checks/fast-record.ts) scans a container (array, object, map) without building it,
// and passes a string, integer or boolean of the kind its slot wants without asking the rules, only
// while the type checks judge that kind by the contract's default rule alone; an enum name the
// contract lists, only where every rule of the slot passes it. A type check with a judge of its own
// for the kind (none today for these) is asked: a proof never passes what it would refuse. The
// modules are loaded afresh (a worker runs many files in one module registry, and the scan's plan of
// a type is made once, at its first proof), and the rules added are taken out after.
import { expect, it, vi } from 'vitest';
import type { TypeSlotRule } from '../lib/checks/json-types.js';
import { exampleRecord } from '../lib/contract/examples.js';
import { DEFAULT_NAMESPACES } from '../lib/contract/namespaces.js';
import { login } from '../lib/contract/operations.js';
import { recordedResponse, type Exchange } from '../lib/http/exchange.js';
import type { JsonValue } from '../lib/json/value.js';

const answer = (record: Record<string, JsonValue>): Exchange => ({
  id: 'case-1.login', title: login.name, origin: { source: 'case', vouched: true, case: 1 },
  request: { method: 'POST', url: `http://target.test${login.route}`, headers: { 'content-type': 'application/json' }, body: '{"userName":"u","searchValues":"s"}' },
  response: recordedResponse(200, { 'content-type': 'application/json; charset=utf-8' }, Buffer.from(JSON.stringify(record))),
  startedAt: new Date(0).toISOString(), durationMs: 1,
});

it('proves a record its own rules of a container or a boolean pass, and doubts one they refuse', async () => {
  vi.resetModules();
  const { ExchangeView } = await import('../lib/checks/exchange-view.js');
  const { provenRecord } = await import('../lib/checks/fast-record.js');
  const { JSON_TYPE_SLOT_RULES } = await import('../lib/checks/json-types.js');
  const proven = (record: Record<string, JsonValue>): boolean => provenRecord(new ExchangeView(answer(record), { namespaces: DEFAULT_NAMESPACES })) !== undefined;
  const sample = exampleRecord(login.response) as Record<string, JsonValue>;
  const flags = login.response.fields.filter((f) => f.type.kind === 'boolean' && f.json in sample).map((f) => f.json);
  expect(flags.length).toBeGreaterThan(1);
  // Every boolean true, at any depth (no string of the sample holds ':false').
  const record = JSON.parse(JSON.stringify(sample).replaceAll(':false', ':true')) as Record<string, JsonValue>;
  const seven = { ...record, roles: ['a', 'b', 'c', 'd', 'e', 'f', 'g'] };
  const eight = { ...record, roles: ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'] };
  const oneFalse = { ...record, [flags[1]!]: false };
  // Before any proof is made (the scan's plan of a type is made once, at its first proof).
  const own: TypeSlotRule[] = [
    { id: 'TEST-ARRAY-AT-MOST-SEVEN', kind: 'array', custom: true, problem: (value) => (Array.isArray(value) && value.length > 7 ? 'more than seven items' : undefined) },
    { id: 'TEST-BOOLEAN-TRUE', kind: 'boolean', custom: true, problem: (value) => (value === false ? 'false' : undefined) },
  ];
  const rules = JSON_TYPE_SLOT_RULES as TypeSlotRule[];
  rules.push(...own);
  try {
    expect(proven(record)).toBe(true);
    expect(proven(seven)).toBe(true);
    expect(proven(eight)).toBe(false);
    expect(proven(oneFalse)).toBe(false);
  } finally {
    rules.splice(rules.length - own.length, own.length);
  }
});

// An enum's name the contract lists is passed from its bytes only when every rule of the slot passes it
// (asked once per type): a rule of its own that refuses one is still asked, and finds it.
it('finds a listed enum name a rule of its own refuses, and passes the others from their bytes', async () => {
  vi.resetModules();
  const { ExchangeView } = await import('../lib/checks/exchange-view.js');
  const { provenRecord } = await import('../lib/checks/fast-record.js');
  const { JSON_TYPE_SLOT_RULES } = await import('../lib/checks/json-types.js');
  const sample = exampleRecord(login.response) as Record<string, JsonValue>;
  expect([sample.originalUserTypeCode, sample.mealPatternVersionCode]).toEqual(['Center', 'Unspecified']);
  const own: TypeSlotRule = { id: 'TEST-ENUM-NOT-CENTER', kind: 'enum', custom: true, problem: (value) => (value === 'Center' ? 'Center refused' : undefined) };
  const rules = JSON_TYPE_SLOT_RULES as TypeSlotRule[];
  rules.push(own);
  try {
    const found = (record: Record<string, JsonValue>) => provenRecord(new ExchangeView(answer(record), { namespaces: DEFAULT_NAMESPACES }))?.findingsOf(own.id).map((f) => [f.path, f.message]);
    expect(found(sample)).toEqual([['$.originalUserTypeCode', expect.stringContaining('Center refused')]]);
    expect(found({ ...sample, originalUserTypeCode: 'Unspecified' })).toEqual([]);
  } finally {
    rules.splice(rules.indexOf(own), 1);
  }
});
