// A member is the contract's member only in the record's namespace, at every level: an element of
// its name in another namespace is one DataContractSerializer does not bind, so the member is absent
// (SOAP-MEMBERS-PRESENT, MUST), as a top-level member elsewhere fails SOAP-MEMBER-NS (MUST). The
// namespace itself stays reported by SOAP-MEMBER-NS and SOAP-NESTED-NS.
import { describe, expect, it } from 'vitest';
import { checkById } from '../lib/checks/catalogue.js';
import { DEFAULT_NAMESPACES } from '../lib/contract/namespaces.js';
import { PROBE } from '../lib/engine/probes.js';
import { changed, goodExchanges, judged, type Change } from './helpers/exchanges.js';

const S = PROBE.soap;
const IDS = ['SOAP-MEMBERS-PRESENT', 'SOAP-MEMBER-NS', 'SOAP-NESTED-NS', 'SOAP-RESPONSE-ELEMENT'];
const ENROLL = '/Envelope/Body/UserDetailsResponse/EnrollmentInfo';

const outcome = (body: Change['body']) => {
  const results = judged(changed(goodExchanges(), S, { body }).values(), IDS.map((id) => checkById.get(id)!));
  return {
    status: Object.fromEntries(IDS.map((id) => [id, results.get(id)!.status])),
    present: results.get('SOAP-MEMBERS-PRESENT')!.examples.map((f) => [f.path, f.message]),
  };
};

/** Every member of EnrollmentInfo put in `ns` (a default namespace declared on each). */
const enrollmentMembersIn = (ns: string) => (b: string) =>
  b.replace(/<EnrollmentInfo>([\s\S]*?)<\/EnrollmentInfo>/, (_m, inner: string) => `<EnrollmentInfo>${inner.replace(/<([A-Za-z]+)>/g, `<$1 xmlns="${ns}">`)}</EnrollmentInfo>`);

describe('a member in another namespace is not counted present, at every level', () => {
  it('EnrollmentInfo\'s members in a foreign namespace fail SOAP-MEMBERS-PRESENT, naming each member and its namespace; SOAP-NESTED-NS still reports the namespace', () => {
    const o = outcome(enrollmentMembersIn('urn:foreign'));
    expect(o.status).toEqual({ 'SOAP-MEMBERS-PRESENT': 'fail', 'SOAP-MEMBER-NS': 'pass', 'SOAP-NESTED-NS': 'fail', 'SOAP-RESPONSE-ELEMENT': 'pass' });
    expect(o.present.map(([path]) => path).sort()).toEqual(['OwnerId', 'SiteId', 'SystemCode', 'SystemCodeId'].map((n) => `${ENROLL}/${n}`));
    expect(o.present).toContainEqual([`${ENROLL}/OwnerId`,
      `OwnerId is missing: the OwnerId there is in "urn:foreign", not the record's namespace "${DEFAULT_NAMESPACES.login}", and DataContractSerializer binds no member in another namespace`]);
  });
  it('one nested member in no namespace is missing, the others present', () => {
    const o = outcome((b) => b.replace('<EnrollmentInfo><OwnerId>', '<EnrollmentInfo><OwnerId xmlns="">'));
    expect(o.present).toEqual([[`${ENROLL}/OwnerId`, expect.stringMatching(/^OwnerId is missing: the OwnerId there is in no namespace, not the record's namespace /)]]);
  });
  it('a top-level member in a foreign namespace fails SOAP-MEMBERS-PRESENT beside SOAP-MEMBER-NS', () => {
    const o = outcome((b) => b.replace('<HadPinCode>', '<HadPinCode xmlns="urn:foreign">'));
    expect(o.status).toMatchObject({ 'SOAP-MEMBERS-PRESENT': 'fail', 'SOAP-MEMBER-NS': 'fail' });
    expect(o.present.map(([path]) => path)).toEqual(['/Envelope/Body/UserDetailsResponse/HadPinCode']);
  });
  it('nested members in the record\'s namespace under another prefix are present', () => {
    const o = outcome((b) => b.replace(/<EnrollmentInfo>([\s\S]*?)<\/EnrollmentInfo>/, (_m, inner: string) =>
      `<EnrollmentInfo xmlns:r="${DEFAULT_NAMESPACES.login}">${inner.replace(/<(\/?)([A-Za-z]+)>/g, '<$1r:$2>')}</EnrollmentInfo>`));
    expect(o.status).toEqual({ 'SOAP-MEMBERS-PRESENT': 'pass', 'SOAP-MEMBER-NS': 'pass', 'SOAP-NESTED-NS': 'pass', 'SOAP-RESPONSE-ELEMENT': 'pass' });
  });
  it('a record wholly in another namespace, its members with it, is SOAP-RESPONSE-ELEMENT\'s alone among the MUST checks here', () => {
    const o = outcome((b) => b.replaceAll(`xmlns="${DEFAULT_NAMESPACES.login}"`, 'xmlns="urn:elsewhere"'));
    expect(o.status).toMatchObject({ 'SOAP-MEMBERS-PRESENT': 'pass', 'SOAP-MEMBER-NS': 'pass', 'SOAP-RESPONSE-ELEMENT': 'fail' });
  });
});
