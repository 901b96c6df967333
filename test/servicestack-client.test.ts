// ServiceStack's own TypeScript client, a tool nobody here wrote, calls the reference by both
// route forms and reads an error's responseStatus as it would from the real platform.
import { JsonServiceClient } from '@servicestack/client';
import { describe, expect, it } from 'vitest';
import { useReference } from './helpers/reference.js';
import { ConfirmEmailRequest, SupportStateUserLoginRequest } from './helpers/servicestack-dtos.js';

const ref = useReference();
const client = () => {
  const c = new JsonServiceClient(ref.url);
  c.basePath = null; // predefined routes: /json/reply/{Request}
  return c;
};

describe('@servicestack/client JsonServiceClient', () => {
  it('calls SupportStateUserLoginRequest at /json/reply and at its custom route', async () => {
    const request = new SupportStateUserLoginRequest({ userName: 'jdoe.support', searchValues: 'x' });
    const viaReply = await client().post(request);
    const viaRoute = await client().postToUrl('/supportstateuser', request);
    expect(viaReply).toMatchObject({ userName: 'jdoe.support', hxUserTypeCode: 7, siteId: '3f2504e04f8911d39a0c0305e82c3301' });
    expect(viaReply.providerPaymentSettings?.['Provider & <Co>']?.isInBackist).toBe(false);
    expect(viaRoute).toEqual(viaReply);
  });

  it('calls ConfirmEmailRequest at /json/reply and at its custom route, reading every value', async () => {
    const request = new ConfirmEmailRequest({ recoveryToken: 'rt', verifyEmail: 'jane@example.org', ownerId: 42, isForMM: false });
    // What the reference answers this account, read without the client.
    const raw = await fetch(`${ref.url}/user/confirmemail`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ recoveryToken: 'rt', verifyEmail: 'jane@example.org', ownerId: 42, isForMM: false }) });
    const expected = await raw.json() as Record<string, unknown>;
    expect(Object.keys(expected)).toEqual(['userName', 'firstName', 'lastName']);
    expect(await client().post(request)).toMatchObject(expected);
    expect(await client().postToUrl('/user/confirmemail', request)).toMatchObject(expected);
  });

  it('reads the responseStatus of an error', async () => {
    const bad = new ConfirmEmailRequest({ ownerId: 'not-a-number' });
    const error = await client().post(bad).then(() => undefined, (e: unknown) => e);
    expect(error).toMatchObject({ responseStatus: { errorCode: 'SerializationException', message: 'member ownerId of ConfirmEmailRequest: expected an integer' } });
  });
});
