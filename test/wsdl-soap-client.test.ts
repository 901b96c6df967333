// The exported WSDL (fixtures/wsdl/service.wsdl), judged by a tool nobody here wrote: the `soap`
// npm client (node-soap) builds its client from the file alone, calls the reference's /soap11 and
// reads UserDetailsResponse. Every member must come back with the reference's value, typed as the
// WSDL's schemas say (int as number, boolean as boolean), under every legitimate style and with
// namespaces other than the defaults.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClientAsync, type Client, type IOptions } from 'soap';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES } from '../lib/contract/export.js';
import { dashedGuid, soapDatetime } from '../lib/contract/formats.js';
import { DEFAULT_NAMESPACES, type ServiceNamespaces } from '../lib/contract/namespaces.js';
import { WSDL_FILE } from '../lib/contract/openapi.js';
import { impersonateLogout, SOAP_REQUEST_MEDIA_TYPE } from '../lib/contract/operations.js';
import { UserDetails } from '../lib/contract/records.js';
import { fieldsOn, type FieldType, type Shape } from '../lib/contract/types.js';
import { mapEntryName } from '../lib/contract/data-contract.js';
import { serviceWsdl } from '../lib/contract/wsdl.js';
import type { JsonObject, JsonValue } from '../lib/json/value.js';
import { referenceUserDetails } from '../lib/reference/data.js';
import type { Variant } from '../lib/reference/profile.js';
import { startReference, type ReferenceOptions } from '../lib/reference/server.js';
import { STYLES } from '../lib/reference/variants.js';

/** xsi:nil is read as null (node-soap's default drops the member): the spec's Settings is nil. */
const CLIENT_OPTIONS: IOptions = { handleNilAsNull: true };

interface Wire { readonly guidCase: 'lower' | 'upper'; readonly nullMembers: 'nil' | 'omit'; readonly ns: ServiceNamespaces }

/** What node-soap should read for `shape` given the reference's JSON data, derived from the
 *  contract: SOAP names, datetimes without fraction, dashed guids, arrays and maps as their item
 *  and entry elements (node-soap reads an empty one as null), nil as null. */
function expectedRead(shape: Shape, data: JsonObject, wire: Wire): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fieldsOn(shape, 'soap')) {
    const v = data[f.json];
    const nil = f.only === 'soap' || v === null || v === undefined;
    // Settings stays nil when other nulls are omitted (soap-nulls-omitted).
    if (nil) { if (wire.nullMembers === 'nil' || f.only === 'soap') out[f.soap] = null; continue; }
    out[f.soap] = expectedValue(f.type, v, wire);
  }
  return out;
}

function expectedValue(type: FieldType, v: JsonValue, wire: Wire): unknown {
  switch (type.kind) {
    case 'datetime': return soapDatetime(v as string);
    case 'guid': { const g = dashedGuid(v as string); return wire.guidCase === 'upper' ? g.toUpperCase() : g.toLowerCase(); }
    case 'object': return expectedRead(type.shape, v as JsonObject, wire);
    case 'array': {
      const items = v as JsonValue[];
      return items.length ? { [type.soapItem.name]: items.map((x) => expectedValue(type.item, x, wire)) } : null;
    }
    case 'map': {
      const entries = Object.entries(v as JsonObject);
      // The entry's name is derived from the namespaces, as .NET derives it (data-contract.ts).
      return entries.length ? { [mapEntryName(type, wire.ns)]: entries.map(([Key, x]) => ({ Key, Value: expectedRead(type.value, x as JsonObject, wire) })) } : null;
    }
    default: return v;
  }
}

const wireOf = (variant?: Variant, ns: ServiceNamespaces = DEFAULT_NAMESPACES): Wire => ({
  guidCase: variant?.soapBuild?.guidCase === 'upper' ? 'upper' : 'lower',
  nullMembers: variant?.soapBuild?.nullMembers === 'omit' ? 'omit' : 'nil',
  ns,
});

async function readRecord(client: Client, options: ReferenceOptions = {}): Promise<Record<string, unknown>> {
  const ref = await startReference(options);
  try {
    client.setEndpoint(`${ref.url}${impersonateLogout.route}`); // the WSDL's address is a placeholder
    const [result] = await client.ImpersonateLogoutRequestAsync({}) as [Record<string, unknown>];
    return result;
  } finally {
    await ref.close();
  }
}

describe(`node-soap from fixtures/${WSDL_FILE}`, () => {
  let client: Client;
  beforeAll(async () => { client = await createClientAsync(join(FIXTURES, WSDL_FILE), CLIENT_OPTIONS); });

  it('finds one SOAP 1.1 operation, ImpersonateLogoutRequest', () => {
    expect(Object.values(client.describe() as Record<string, Record<string, Record<string, unknown>>>)
      .flatMap((service) => Object.values(service).flatMap((port) => Object.keys(port)))).toEqual([impersonateLogout.name]);
  });

  it('calls the reference as the spec says and reads every member with its type', async () => {
    const record = await readRecord(client);
    // The request node-soap built from the WSDL: SOAP 1.1 media type and the SOAPAction of 4.2.
    expect(client.lastRequestHeaders).toMatchObject({ 'Content-Type': SOAP_REQUEST_MEDIA_TYPE, SOAPAction: `"${impersonateLogout.soapAction}"` });

    const data = referenceUserDetails();
    expect(record).toMatchObject({
      UserName: data.userName, City: 'Zürich', CenterName: data.centerName, // strings, XML-special and non-ASCII
      HXUserTypeCode: 7, OwnerId: 2147483647, SecurityGroupNumber: -2147483648, // integers, as numbers
      HadPinCode: true, IsFirstTimeLogin: false, // booleans
      CreatedDate: '2019-03-01T08:15:30', // a datetime, no fraction
      SiteId: dashedGuid(data.siteId as string), // a guid, dashed
      Roles: { string: data.roles }, AvailableYearsFor1099K: { int: [2023, 2024, 2025] }, // arrays
      EnrollmentInfo: { OwnerId: 42, SiteId: '9b2e1f3c-4a5d-6e7f-8091-a2b3c4d5e6f7' }, // a nested object
      Settings: null, Address2: null, // nil
    });
    const entries = (record.ProviderPaymentSettings as Record<string, { Key: string; Value: Record<string, unknown> }[]>)
      .KeyValueOfstringProviderPaymentSettings3EALVCDt!; // the name .NET writes for the default namespace
    const settings = (data.providerPaymentSettings as Record<string, Record<string, boolean>>)['Provider & <Co>']!;
    expect(entries.find((e) => e.Key === 'Provider & <Co>')?.Value).toEqual({ // the map, its key XML-special
      IsInBackist: settings.isInBackist, ParentHasPermissionInitiatePayment: settings.parentHasPermissionInitiatePayment,
      ProviderAllowInitiatePayment: settings.providerAllowInitiatePayment, ProviderAllowParaPay: settings.providerAllowParaPay,
    });
    // And the whole record, member by member, as the contract says it reads.
    expect(record).toEqual(expectedRead(UserDetails, data, wireOf()));
  });

  it(`reads the same record under every legitimate style (${STYLES.length})`, async () => {
    const differing: Record<string, unknown> = {};
    for (const style of STYLES) {
      const record = await readRecord(client, { variants: [style] });
      const data = style.editData ? style.editData(referenceUserDetails(), 'userDetails') : referenceUserDetails();
      const expected = expectedRead(UserDetails, data, wireOf(style));
      if (JSON.stringify(record) !== JSON.stringify(expected)) {
        try { expect(record).toEqual(expected); } catch (e) { differing[style.name] = (e as Error).message.slice(0, 2000); }
      }
    }
    expect(differing).toEqual({});
  });
});

describe('the WSDL is a function of the configured namespaces', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wsdl-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const clientFor = async (ns: ServiceNamespaces) => {
    const file = join(dir, `${Math.random().toString(36).slice(2)}.wsdl`);
    writeFileSync(file, serviceWsdl(ns));
    return createClientAsync(file, CLIENT_OPTIONS);
  };
  const custom: ServiceNamespaces = { request: 'urn:example:impersonation', login: 'urn:example:login' };

  it('a WSDL for other namespaces reads a reference configured with them', async () => {
    const record = await readRecord(await clientFor(custom), { namespaces: custom });
    expect(record).toEqual(expectedRead(UserDetails, referenceUserDetails(), wireOf(undefined, custom)));
  });

  it('one namespace for both request and record works too', async () => {
    const same = { request: custom.login, login: custom.login };
    expect((await readRecord(await clientFor(same), { namespaces: same })).UserName).toBe('jdoe.support');
  });

  it('the default WSDL does not fit a reference with other namespaces: the reference faults', async () => {
    const client = await clientFor(DEFAULT_NAMESPACES);
    await expect(readRecord(client, { namespaces: custom })).rejects.toThrow(/must be in namespace urn:example:impersonation/);
  });
});
