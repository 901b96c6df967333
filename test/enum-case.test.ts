// A case-only enum name is JSON-ENUM-CASE's (MUST) and not also JSON-ENUM-SEEN's; a name the spec
// does not show in any case stays JSON-ENUM-SEEN's alone (SHOULD).
import { describe, expect, it } from 'vitest';
import { checkById } from '../lib/checks/catalogue.js';
import { login } from '../lib/contract/operations.js';
import { PROBE } from '../lib/engine/probes.js';
import { changed, goodExchanges, judged } from './helpers/exchanges.js';

const L = PROBE.post(login);
const CHECKS = ['JSON-ENUM-CASE', 'JSON-ENUM-SEEN'].map((id) => checkById.get(id)!);

const statuses = (value: string) => {
  const body = (b: string) => b.replace('"originalUserTypeCode":"Center"', `"originalUserTypeCode":${JSON.stringify(value)}`);
  const exchanges = value === 'Center' ? goodExchanges() : changed(goodExchanges(), L, { body });
  const results = judged(exchanges.values(), CHECKS);
  return Object.fromEntries(CHECKS.map((c) => [c.id, results.get(c.id)!.status]));
};

describe('enum names: case-only differences are a MUST failure, unknown names advisory', () => {
  it.each(['center', 'CENTER', 'cEnTeR'])('%s fails JSON-ENUM-CASE only', (v) => {
    expect(statuses(v)).toEqual({ 'JSON-ENUM-CASE': 'fail', 'JSON-ENUM-SEEN': 'pass' });
  });
  it('Provider (no known name in any case) fails JSON-ENUM-SEEN only', () => {
    expect(statuses('Provider')).toEqual({ 'JSON-ENUM-CASE': 'pass', 'JSON-ENUM-SEEN': 'fail' });
  });
  it('Center, exactly, fails neither', () => {
    expect(statuses('Center')).toEqual({ 'JSON-ENUM-CASE': 'pass', 'JSON-ENUM-SEEN': 'pass' });
  });
});
