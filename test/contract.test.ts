// The contract against the spec's own text: counts and names read off interface.md 2.1-2.3, and
// the ordering examples of servicestack-notes.md. A slip in lib/contract/records.ts fails here.
import { describe, expect, it } from 'vitest';
import { OPERATIONS, replyRoute } from '../lib/contract/operations.js';
import { Confirmation, ConfirmEmailRequest, UserDetails } from '../lib/contract/records.js';
import { fieldsOn, soapOrder, type Shape } from '../lib/contract/types.js';

const kinds = (s: Shape) => {
  const counts: Record<string, number> = {};
  for (const f of s.fields) counts[f.type.kind] = (counts[f.type.kind] ?? 0) + 1;
  return counts;
};

describe('user-details record (2.1)', () => {
  it('has the number of fields of each type that the spec lists', () => {
    // 38 strings, 12 integers, 11 datetimes, 1 guid, 37 booleans, 3 enums; arrays: roles,
    // permissions, possibleLoginTypes, availableYearsFor1099K, associatedIds, settings;
    // objects: enrollmentInfo, nonCongregateSettings; map: providerPaymentSettings.
    expect(kinds(UserDetails)).toEqual({ string: 38, integer: 12, datetime: 11, guid: 1, boolean: 37, enum: 3, array: 6, object: 2, map: 1 });
  });

  it('has no duplicate names on either wire', () => {
    for (const wire of ['json', 'soap'] as const) {
      const names = fieldsOn(UserDetails, wire).map((f) => (wire === 'json' ? f.json : f.soap));
      expect(new Set(names).size).toBe(names.length);
    }
  });

  it('names SOAP elements in PascalCase, with the spec\'s exceptions', () => {
    const soap = Object.fromEntries(UserDetails.fields.map((f) => [f.json, f.soap]));
    expect(soap.hxUserTypeCode).toBe('HXUserTypeCode');
    expect(soap.hxToken).toBe('HxToken');
    expect(soap.paymentProcessorJoinDate).toBe('PaymentProcessorJoinDate');
    expect(soap.availableYearsFor1099K).toBe('AvailableYearsFor1099K');
    expect(soap.jToken).toBe('JToken');
  });

  it('keeps settings out of JSON and in SOAP', () => {
    expect(fieldsOn(UserDetails, 'json').map((f) => f.json)).not.toContain('settings');
    expect(fieldsOn(UserDetails, 'soap').map((f) => f.soap)).toContain('Settings');
  });

  it('orders SOAP members by ordinal comparison, as DataContractSerializer does', () => {
    const order = soapOrder(UserDetails).map((f) => f.soap);
    const before = (a: string, b: string) => expect(order.indexOf(a)).toBeLessThan(order.indexOf(b));
    before('HXUserTypeCode', 'HadPinCode');
    before('IsARASHybrid', 'IsAccountingActive');
    before('IsSFSPHybrid', 'IsSfspCenterAndStateLA');
    expect(order[0]).toBe('Address');
  });

  it('marks the credential-like fields the spec names', () => {
    const credentials = UserDetails.fields.filter((f) => f.sensitivity === 'credential').map((f) => f.json).sort();
    expect(credentials).toEqual(['apiKey', 'basicAuthHeader', 'hxToken', 'jToken']);
    expect(ConfirmEmailRequest.fields.find((f) => f.json === 'recoveryToken')?.sensitivity).toBe('credential');
  });

  it('makes value types non-nullable and reference types nullable', () => {
    for (const f of UserDetails.fields) {
      expect(f.nullable, f.json).toBe(['string', 'array', 'object', 'map'].includes(f.type.kind));
    }
  });
});

describe('requests and confirmation (2.2, 2.3)', () => {
  it('lists the request and confirmation fields', () => {
    expect(ConfirmEmailRequest.fields.map((f) => f.json)).toEqual(['recoveryToken', 'verifyEmail', 'childId', 'systemCode', 'ownerId', 'dataForMM', 'isForMM']);
    expect(Confirmation.fields.map((f) => f.json)).toEqual(['userName', 'firstName', 'lastName']);
  });
});

describe('operations (4)', () => {
  it('has the routes of 4.1-4.3', () => {
    expect(OPERATIONS.map((op) => [op.name, op.route])).toEqual([
      ['SupportStateUserLoginRequest', '/supportstateuser'],
      ['ImpersonateLogoutRequest', '/soap11'],
      ['ConfirmEmailRequest', '/user/confirmemail'],
    ]);
    expect(replyRoute(OPERATIONS[0]!)).toBe('/json/reply/SupportStateUserLoginRequest');
  });
});
