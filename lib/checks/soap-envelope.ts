// The SOAP envelope of 4.2: SOAP 1.1 namespace, Header?/Body structure, one UserDetailsResponse in
// the login namespace, and its members in the record's namespace. Namespace URIs are compared,
// never prefixes.
import { namespaceOf, SOAP11_ENVELOPE, SOAP12_ENVELOPE } from '../contract/namespaces.js';
import { impersonateLogout } from '../contract/operations.js';
import { UserDetails } from '../contract/records.js';
import { X } from '../engine/exchanges.js';
import { elementChildren, textContent, type XmlElement } from '../xml/model.js';
import { acrossExchanges, finding, show, type Check, type Finding, type Look } from './check.js';
import type { CheckContext, SoapParts } from './context.js';
import { soapObjects, soapSlots } from './walk-soap.js';

export const SOAP_EXCHANGES = [X.soap, X.soapFormatQuery];
const RECORD = impersonateLogout.responseElement;

const qname = (e: { ns: string | null; name: string }) => (e.ns ? `{${e.ns}}${e.name}` : `${e.name} (no namespace)`);
const hasText = (e: XmlElement) => textContent(e).trim() !== '';

/** Runs `look` on the SOAP parts of each SOAP answer; an answer that is not a 200 XML document is skipped. */
export function overSoap(ctx: CheckContext, look: (id: string, parts: SoapParts) => Look): ReturnType<typeof acrossExchanges> {
  return acrossExchanges(ctx, SOAP_EXCHANGES, (id) => {
    const soap = ctx.soap(id, RECORD);
    return soap.ok ? look(id, soap.value) : { skip: soap.reason };
  });
}

/** As overSoap, for looks that need the record itself. */
export function overSoapRecord(ctx: CheckContext, look: (id: string, record: XmlElement, path: string) => Look) {
  return overSoap(ctx, (id, p) => (p.record && p.body
    ? look(id, p.record, `/${p.envelope.name}/${p.body.name}/${p.record.name}`)
    : { skip: `no Envelope/Body/${RECORD}` }));
}

const envelope = { area: 'SOAP envelope', operation: impersonateLogout.name, clause: '4.2', exchanges: SOAP_EXCHANGES } as const;

export const SOAP_ENVELOPE_CHECKS: readonly Check[] = [
  {
    ...envelope, level: 'MUST',
    id: 'SOAP-ENVELOPE-NS',
    title: 'The Envelope is SOAP 1.1',
    requirement: `The root element is Envelope in ${SOAP11_ENVELOPE}.`,
    run: (ctx) => overSoap(ctx, (id, { envelope: env }) => {
      if (env.name === 'Envelope' && env.ns === SOAP11_ENVELOPE) return [];
      const why = env.ns === SOAP12_ENVELOPE ? 'a SOAP 1.2 Envelope' : qname(env);
      return [finding(id, `the root element is ${why}, expected {${SOAP11_ENVELOPE}}Envelope`, { path: `/${env.name}`, actual: env.ns ?? '' })];
    }),
  },
  {
    ...envelope, level: 'MUST',
    id: 'SOAP-BODY',
    title: 'The Envelope holds an optional Header, then one Body',
    requirement: "The Envelope's children are an optional Header then exactly one Body, in the Envelope's namespace (SOAP 1.1 section 4).",
    run: (ctx) => overSoap(ctx, (id, { envelope: env }) => {
      const kids = elementChildren(env);
      const names = kids.map((k) => (k.ns === env.ns ? k.name : qname(k)));
      const ok = (names.length === 1 && names[0] === 'Body') || (names.length === 2 && names[0] === 'Header' && names[1] === 'Body');
      const out: Finding[] = ok ? [] : [finding(id, `the Envelope holds ${names.join(', ') || 'nothing'}, expected [Header,] Body`, { path: `/${env.name}` })];
      if (hasText(env)) out.push(finding(id, 'the Envelope holds text outside its elements', { path: `/${env.name}` }));
      return out;
    }),
  },
  {
    ...envelope, level: 'MUST',
    id: 'SOAP-BODY-SINGLE',
    title: 'The Body holds exactly one element',
    requirement: 'The Body holds exactly one element and no other content.',
    run: (ctx) => overSoap(ctx, (id, { envelope: env, body }) => {
      if (!body) return { skip: 'no Body' };
      const kids = elementChildren(body);
      const path = `/${env.name}/${body.name}`;
      const out: Finding[] = kids.length === 1 ? [] : [finding(id, `the Body holds ${kids.length} elements (${kids.map((k) => k.name).join(', ')}), expected one`, { path })];
      if (hasText(body)) out.push(finding(id, 'the Body holds text outside its element', { path }));
      return out;
    }),
  },
  {
    ...envelope, level: 'MUST',
    id: 'SOAP-RESPONSE-ELEMENT',
    title: 'The Body holds UserDetailsResponse in the login namespace',
    requirement: `The Body's element is ${RECORD} in {service_login_namespace}.`,
    interpretation: 'The login namespace is configuration (SERVICE_LOGIN_NAMESPACE); the default is the reference\'s.',
    run: (ctx) => overSoap(ctx, (id, { envelope: env, body }) => {
      const first = body && elementChildren(body)[0];
      if (!first) return [finding(id, 'the Body holds no element', { path: `/${env.name}/Body` })];
      const path = `/${env.name}/${body.name}/${first.name}`;
      if (first.name === 'Fault') return [finding(id, `the Body holds a SOAP Fault: ${show(textContent(elementChildren(first).find((c) => c.name === 'faultstring') ?? first))}`, { path })];
      const want = ctx.settings.namespaces.login;
      return first.name === RECORD && first.ns === want ? [] : [finding(id, `the Body holds ${qname(first)}, expected {${want}}${RECORD}`, { path, actual: first.ns ?? '' })];
    }),
  },
  {
    ...envelope, level: 'MUST', clause: '4.2, 2.1',
    id: 'SOAP-MEMBER-NS',
    title: "The record's members are in the record's namespace",
    requirement: `Every child element of ${RECORD} is in the namespace of ${RECORD} itself.`,
    interpretation: 'A .NET client ignores members in any other namespace (DataContractSerializer), so an unqualified or foreign member is lost.',
    run: (ctx) => overSoapRecord(ctx, (id, record, path) =>
      elementChildren(record).filter((c) => c.ns !== record.ns)
        .map((c) => finding(id, `${c.name} is in ${c.ns ?? 'no namespace'}, not ${record.ns ?? 'no namespace'}`, { path: `${path}/${c.name}`, actual: c.ns ?? '' }))),
  },
  {
    ...envelope, level: 'SHOULD', clause: '2.1',
    id: 'SOAP-NESTED-NS',
    title: 'Nested data contracts are in the login namespace',
    requirement: 'Members of SystemAssociation, EnrollmentInfo, NonCongregateSettings and the payment settings are in {service_login_namespace}.',
    interpretation: 'The spec names only the record\'s namespace; the nested contracts\' namespace is the reference\'s reading (one contract namespace for the service).',
    run: (ctx) => overSoapRecord(ctx, (id, record, path) => {
      const want = ctx.settings.namespaces.login;
      const out: Finding[] = [];
      for (const o of soapObjects(UserDetails, record, path)) {
        if (o.element === record) continue;
        for (const c of elementChildren(o.element)) if (c.ns !== want) out.push(finding(id, `${c.name} is in ${c.ns ?? 'no namespace'}`, { path: `${o.path}/${c.name}` }));
      }
      return out;
    }),
  },
  {
    ...envelope, level: 'SHOULD', clause: '2.1',
    id: 'SOAP-ITEM-NS',
    title: 'Collection items are in the namespaces .NET uses',
    requirement: 'int and string items and dictionary entries (with Key and Value) are in the Arrays namespace, DayOfWeek items in the System namespace, SystemAssociation items in the login namespace.',
    interpretation: 'The spec names the item elements but not their namespaces; these are DataContractSerializer\'s (servicestack-notes.md).',
    run: (ctx) => overSoapRecord(ctx, (id, record, path) => {
      const out: Finding[] = [];
      const expect = (e: XmlElement, ns: string, at: string) => { if (e.ns !== ns) out.push(finding(id, `${e.name} is in ${e.ns ?? 'no namespace'}, expected ${ns}`, { path: at })); };
      for (const s of soapSlots(UserDetails, record, path)) {
        if (s.item && s.field.type.kind === 'array') expect(s.element, namespaceOf(s.field.type.soapItem.ns, ctx.settings.namespaces), s.path);
        if (!s.item && s.type.kind === 'map') {
          const ns = namespaceOf(s.type.soapEntry.ns, ctx.settings.namespaces);
          for (const entry of elementChildren(s.element)) {
            expect(entry, ns, `${s.path}/${entry.name}`);
            for (const kv of elementChildren(entry)) expect(kv, ns, `${s.path}/${entry.name}/${kv.name}`);
          }
        }
      }
      return out;
    }),
  },
];
