// The reference's SOAP output against an XML Schema written from the spec alone, by someone who
// did not read this project's code (fixtures/xsd/independent/README.md), validated by libxml2.
import { describe, expect, it } from 'vitest';
import { call, postSoap, useReference } from './helpers/reference.js';
import { xsdErrors } from './helpers/xsd.js';

const ref = useReference();
const validate = (xml: string) => xsdErrors('independent', 'soap-envelope.xsd', xml);

describe('SOAP record against the independent XSD (libxml2)', () => {
  it('POST /soap11 validates', async () => {
    expect(await validate((await postSoap(`${ref.url}/soap11`)).body)).toEqual([]);
  });
  it('POST /supportstateuser.soap11 validates', async () => {
    expect(await validate((await call(`${ref.url}/supportstateuser.soap11`, { json: {} })).body)).toEqual([]);
  });
  it('the validator is live: two members swapped, a fraction, True are each rejected', async () => {
    const good = (await postSoap(`${ref.url}/soap11`)).body;
    const swapped = good.replace('<HXUserTypeCode>7</HXUserTypeCode><HadPinCode>true</HadPinCode>', '<HadPinCode>true</HadPinCode><HXUserTypeCode>7</HXUserTypeCode>');
    expect(swapped).not.toBe(good);
    expect(await validate(swapped)).not.toEqual([]);
    expect(await validate(good.replace('<Expires>2026-12-21T19:41:00</Expires>', '<Expires>2026-12-21T19:41:00.123</Expires>'))).not.toEqual([]);
    expect(await validate(good.replace('<HadPinCode>true</HadPinCode>', '<HadPinCode>True</HadPinCode>'))).not.toEqual([]);
  });
});
