// The proof (lib/checks/fast-record.ts) scans a container (array, object, map) without building it
// only while the type checks judge that kind by the contract's default rule alone. A type check with a
// judge of its own for a container kind (none today) gets the container built and is asked: a proof
// never passes what it would refuse. Its own file: the rule added below stays in this module's
// catalogue.
import { expect, it } from 'vitest';
import { ExchangeView } from '../lib/checks/exchange-view.js';
import { provenRecord } from '../lib/checks/fast-record.js';
import { JSON_TYPE_SLOT_RULES, type TypeSlotRule } from '../lib/checks/json-types.js';
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
const proven = (record: Record<string, JsonValue>): boolean => provenRecord(new ExchangeView(answer(record), { namespaces: DEFAULT_NAMESPACES })) !== undefined;

it('proves a record whose containers its own rules do not read, and doubts one that a container rule of its own refuses', () => {
  const record = exampleRecord(login.response) as Record<string, JsonValue>;
  const seven = { ...record, roles: ['a', 'b', 'c', 'd', 'e', 'f', 'g'] };
  const eight = { ...record, roles: ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'] };
  // Before any proof is made (the scan's plan of a type is made once, at its first proof).
  const tooLong: TypeSlotRule = {
    id: 'TEST-ARRAY-AT-MOST-SEVEN', kind: 'array', custom: true,
    problem: (value) => (Array.isArray(value) && value.length > 7 ? 'more than seven items' : undefined),
  };
  (JSON_TYPE_SLOT_RULES as TypeSlotRule[]).push(tooLong);
  try {
    expect(proven(record)).toBe(true);
    expect(proven(seven)).toBe(true);
    expect(proven(eight)).toBe(false);
  } finally {
    (JSON_TYPE_SLOT_RULES as TypeSlotRule[]).pop();
  }
});
