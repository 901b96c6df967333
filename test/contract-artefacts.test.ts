// The files in fixtures/ that are derived from the contract must equal their derivation, and the
// reference's data must satisfy the derived schemas (checked by Ajv, an engine we did not write).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { mapEntryName, namespacesDigest, serviceStackCamelCase } from '../lib/contract/data-contract.js';
import { derivedArtefacts, FIXTURES } from '../lib/contract/export.js';
import { allJsonSchemas } from '../lib/contract/json-schema.js';
import { DEFAULT_NAMESPACES } from '../lib/contract/namespaces.js';
import { section2Shapes } from '../lib/contract/section2.js';
import { UserDetails } from '../lib/contract/records.js';
import { referenceConfirmation, referenceUserDetails } from '../lib/reference/data.js';

describe('derived artefacts in fixtures/', () => {
  for (const [rel, content] of Object.entries(derivedArtefacts())) {
    it(`fixtures/${rel} is up to date (else run: npm run contract:export)`, () => {
      expect(readFileSync(join(FIXTURES, rel), 'utf8')).toBe(content);
    });
  }
});

describe('JSON Schemas', () => {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  for (const schema of Object.values(allJsonSchemas())) ajv.addSchema(schema);
  const validate = (id: string, data: unknown) => {
    const ok = ajv.validate(id, data);
    return ok ? [] : (ajv.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
  };

  it('accept the reference records and the request fixtures', () => {
    expect(validate('UserDetailsResponse.schema.json', referenceUserDetails())).toEqual([]);
    expect(validate('ConfirmEmailResponse.schema.json', referenceConfirmation())).toEqual([]);
    for (const name of ['SupportStateUserLoginRequest', 'ConfirmEmailRequest', 'ImpersonateLogoutRequest']) {
      const data = JSON.parse(readFileSync(join(FIXTURES, `requests/${name}.json`), 'utf8'));
      expect(validate(`${name}.schema.json`, data)).toEqual([]);
    }
  });

  it('reject what the spec rules out', () => {
    const good = referenceUserDetails();
    const bad = (patch: Record<string, unknown>) => validate('UserDetailsResponse.schema.json', { ...good, ...patch });
    expect(bad({ createdDate: '2019-03-01T08:15:30.500' })).not.toEqual([]);
    expect(bad({ createdDate: '2019-03-01T08:15:30.5000000Z' })).not.toEqual([]);
    expect(bad({ siteId: '3f2504e0-4f89-11d3-9a0c-0305e82c3301' })).not.toEqual([]);
    expect(bad({ userId: '1' })).not.toEqual([]);
    expect(bad({ userId: 1.5 })).not.toEqual([]);
    expect(bad({ settings: null })).not.toEqual([]);
    expect(bad({ isParachute: 'true' })).not.toEqual([]);
    expect(bad({ nonCongregateSettings: { ...(good.nonCongregateSettings as object), mealDays: ['Funday'] } })).not.toEqual([]);
    const { userId: _dropped, ...missing } = good;
    expect(validate('UserDetailsResponse.schema.json', missing)).not.toEqual([]);
  });
});

describe('names the .NET platform derives (held to .NET itself by test/dotnet-oracle.test.ts)', () => {
  it('ServiceStack\'s camelCase of every SOAP name is the spec\'s JSON name, so the C# export needs no [DataMember(Name)]', () => {
    const pairs = section2Shapes().flatMap((s) => s.fields).map((f) => [f.soap, serviceStackCamelCase(f.soap), f.json]);
    expect(pairs.filter(([, camel, json]) => camel !== json)).toEqual([]);
    expect(serviceStackCamelCase('HXUserTypeCode')).toBe('hxUserTypeCode');
    expect(serviceStackCamelCase('IsARASHybrid')).toBe('isARASHybrid');
  });

  it('the dictionary entry name follows the login namespace', () => {
    const map = UserDetails.fields.find((f) => f.soap === 'ProviderPaymentSettings')!.type;
    if (map.kind !== 'map') throw new Error('ProviderPaymentSettings is not a map');
    expect(mapEntryName(map, DEFAULT_NAMESPACES)).toBe('KeyValueOfstringProviderPaymentSettings3EALVCDt');
    expect(mapEntryName(map, { ...DEFAULT_NAMESPACES, login: 'urn:other' })).not.toBe(mapEntryName(map, DEFAULT_NAMESPACES));
    expect(namespacesDigest(['http://www.w3.org/2001/XMLSchema', 'urn:other'])).toMatch(/^[A-Za-z0-9_]{8,}$/);
  });
});
