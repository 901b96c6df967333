// The SOAP envelope of 4.2: its encoding, SOAP 1.1 namespace, Header?/Body structure, one UserDetailsResponse in
// the login namespace, and its members in the record's namespace. Namespace URIs are compared,
// never prefixes.
import { isSoap11Fault, namespaceOf, SOAP, SOAP11_ENVELOPE, SOAP12_ENVELOPE } from '../contract/namespaces.js';
import { impersonateLogout } from '../contract/operations.js';
import { UserDetails } from '../contract/records.js';
import { encodingLabels, encodingName } from '../xml/decode.js';
import { attribute, elementChildren, textContent, type XmlElement } from '../xml/model.js';
import { finding, show, type Check, type Finding, type Look } from './check.js';
import type { ExchangeView, SoapParts } from './exchange-view.js';
import { soapRecordKind } from './kinds.js';
import { soapObjects, soapSlots, type SoapObjectAt, type SoapSlot } from './walk-soap.js';
import { PATHS } from './whole-answer.js';

const RECORD = impersonateLogout.responseElement;

/** A namespace as received, quoted as show() quotes any received value (a report cuts it there). */
export const shownNs = (ns: string | null): string => (ns ? show(ns) : 'no namespace');
/** An element as received: its name and its namespace, each quoted as show() quotes any received
 *  value (a report cuts a long one there and keeps the reason after it). */
export const qname = (e: { ns: string | null; name: string }) => (e.ns ? `${show(e.name)} in ${show(e.ns)}` : `${show(e.name)} (no namespace)`);
/** The Envelope's children as received, when they are not [Header,] Body in `ns` (SOAP 1.1 section 4);
 *  undefined when they are. */
export function misshapenEnvelope(env: XmlElement, ns: string | null): string | undefined {
  const kids = elementChildren(env);
  const is = (e: XmlElement | undefined, name: string) => e?.ns === ns && e.name === name;
  const ok = (kids.length === 1 && is(kids[0], SOAP.body)) || (kids.length === 2 && is(kids[0], SOAP.header) && is(kids[1], SOAP.body));
  return ok ? undefined : kids.map((k) => (k.ns === ns ? show(k.name) : qname(k))).join(', ') || 'nothing';
}
const hasText = (e: XmlElement) => textContent(e).trim() !== '';

/** A look at the SOAP parts of an answer; an answer that is not a 200 XML document is skipped. */
export const overSoap = (look: (parts: SoapParts, ex: ExchangeView) => Look) => (ex: ExchangeView): Look => {
  const soap = ex.soap(RECORD);
  return soap.ok ? look(soap.value, ex) : { skip: soap.reason };
};

/** What the record checks read of a SOAP record: the element and its walks, made once per exchange
 *  (every type check reads the slots). */
export interface SoapRecordView {
  readonly record: XmlElement;
  readonly path: string;
  /** Every member element and item at every depth. */
  readonly slots: readonly SoapSlot[];
  /** The record and every nested element of a known shape. */
  readonly objects: readonly SoapObjectAt[];
}

/** As overSoap, for looks that need the record itself. */
export const overSoapRecord = (look: (view: SoapRecordView, ex: ExchangeView) => Look) =>
  overSoap(({ envelope: env, body, record }, ex) => {
    if (!record || !body) return { skip: `no ${SOAP.envelope}/${SOAP.body}/${RECORD}` };
    const view = ex.once('soap-record-view', (): SoapRecordView => {
      const path = `/${env.name}/${body.name}/${record.name}`;
      const slots = soapSlots(UserDetails, record, path);
      return { record, path, slots, objects: soapObjects(UserDetails, record, path, slots) };
    });
    return look(view, ex);
  });

/** UTF-8 or UTF-16 (either byte order), as a label's WHATWG encoding names it; undefined for another. */
const utfOf = (label: string): 'UTF-8' | 'UTF-16' | undefined => {
  const name = encodingName(label);
  return name === 'utf-8' ? 'UTF-8' : name === 'utf-16le' || name === 'utf-16be' ? 'UTF-16' : undefined;
};

const envelope = {
  area: 'SOAP envelope', operation: impersonateLogout.name, clause: '4.2', judges: soapRecordKind.judges, appliesTo: soapRecordKind.applies,
} as const;

export const SOAP_ENVELOPE_CHECKS: readonly Check[] = [
  {
    ...envelope, level: 'MUST',
    id: 'SOAP-ENVELOPE-NS',
    title: 'The Envelope is SOAP 1.1',
    requirement: `The root element is Envelope in ${SOAP11_ENVELOPE}.`,
    judge: overSoap(({ envelope: env }) => {
      if (env.name === SOAP.envelope && env.ns === SOAP11_ENVELOPE) return [];
      const why = env.ns === SOAP12_ENVELOPE ? 'a SOAP 1.2 Envelope' : qname(env);
      return [finding(`the root element is ${why}, expected {${SOAP11_ENVELOPE}}Envelope`, { path: `/${env.name}`, actual: env.ns ?? '' })];
    }),
  },
  {
    ...envelope, level: 'MUST',
    id: 'SOAP-ENCODING',
    title: 'The answer is UTF-8 or UTF-16, and every label names the encoding it is read by',
    requirement: 'The SOAP answer is in UTF-8 or UTF-16, and its byte-order mark, Content-Type charset and XML declaration encoding, each where present, name that same encoding.',
    interpretation: 'Interpretation: 4.2 names application/xml and no charset, and its request is UTF-8. The encoding the body is read by is the byte-order mark\'s, else the charset\'s, else the declaration\'s, else UTF-8 (RFC 7303 3.2, XML 1.0 appendix F); '
      + 'it must be UTF-8 or UTF-16 (WS-I Basic Profile 1.1 R1012: a SOAP message is serialised as one of them). '
      + 'A label naming another encoding than that one fails even where the body reads rightly by the one that decides: a reader without the header (a saved answer, an XML reader handed the bytes) goes by the declaration, '
      + 'XML 1.0 4.3.3 makes a declaration that misnames the encoding a fatal error, and every non-ASCII character would be misread. '
      + 'Labels are compared by their WHATWG encoding ("utf8" is UTF-8; UTF-16 of either byte order is one).',
    judge: overSoap((_parts, ex) => {
      const r = ex.response();
      if (!r.ok) return { skip: r.reason };
      const header = r.value.headers['content-type'];
      const { bom, charset, declared } = encodingLabels(r.value.body, header);
      // In the order that decides: the first present is the encoding the body is read by.
      const labels = [
        ...(bom ? [{ label: bom, where: 'the byte-order mark', path: PATHS.body }] : []),
        ...(charset ? [{ label: charset, where: `the charset of Content-Type ${show(header)}`, path: PATHS.contentType }] : []),
        ...(declared ? [{ label: declared, where: 'the XML declaration', path: PATHS.body }] : []),
      ];
      const [first] = labels;
      return labels.flatMap((l) => {
        const utf = utfOf(l.label);
        if (l === first) return utf ? [] : [finding(`${l.where} names ${show(l.label)}, and the body is read by it; a SOAP message is UTF-8 or UTF-16`, { path: l.path, actual: l.label })];
        return utf && utf === utfOf(first!.label) ? []
          : [finding(`${l.where} names ${show(l.label)}, but ${first!.where} names ${show(first!.label)}, by which the body is read`, { path: l.path, actual: l.label })];
      });
    }),
  },
  {
    ...envelope, level: 'MUST',
    id: 'SOAP-BODY',
    title: 'The Envelope holds an optional Header, then one Body',
    requirement: "The Envelope's children are an optional Header then exactly one Body, in the Envelope's namespace (SOAP 1.1 section 4).",
    interpretation: 'SOAP 1.1 section 4 allows namespace-qualified elements after the Body; WS-I Basic Profile 1.1 (R1011) forbids them, and section 4.2 of the spec describes an envelope whose body holds the record, nothing beside it. An element after the Body fails here by that profile, not by SOAP 1.1 itself.',
    judge: overSoap(({ envelope: env }) => {
      const held = misshapenEnvelope(env, env.ns);
      const out: Finding[] = held === undefined ? [] : [finding(`the Envelope holds ${held}, expected [Header,] Body`, { path: `/${env.name}` })];
      if (hasText(env)) out.push(finding('the Envelope holds text outside its elements', { path: `/${env.name}` }));
      return out;
    }),
  },
  {
    ...envelope, level: 'MUST',
    id: 'SOAP-HEADER-MUST-UNDERSTAND',
    title: 'No Header block demands to be understood',
    requirement: 'No child of the SOAP Header carries mustUnderstand="1" (or "true"): the interface defines no header block, so no client understands one (SOAP 1.1 section 4.2.3).',
    interpretation: 'SOAP 1.1 4.2.3: a recipient MUST fault on a mustUnderstand="1" block it does not understand, and 4.2 defines no header. '
      + 'A WCF BasicHttpBinding client throws on the Action block that Message.CreateMessage with an action writes (fixtures/dotnet/golden/platform.json, probes.soapWithAction). '
      + '"true" is counted too, as xs:boolean spells it. A Header without such blocks, or with mustUnderstand="0", stays legitimate.',
    judge: overSoap(({ envelope: env }) => {
      const header = elementChildren(env).find((e) => e.name === SOAP.header && e.ns === env.ns);
      if (!header) return [];
      return elementChildren(header).flatMap((block) => {
        const value = attribute(block, env.ns, SOAP.mustUnderstand)?.trim();
        return value === '1' || value === 'true'
          ? [finding(`the Header block ${qname(block)} has mustUnderstand="${value}"; no client of this interface understands it`, { path: `/${env.name}/${header.name}/${block.name}`, actual: value })]
          : [];
      });
    }),
  },
  {
    ...envelope, level: 'MUST',
    id: 'SOAP-BODY-SINGLE',
    title: 'The Body holds exactly one element',
    requirement: 'The Body holds exactly one element and no other content.',
    judge: overSoap(({ envelope: env, body }) => {
      if (!body) return { skip: 'no Body' };
      const kids = elementChildren(body);
      const path = `/${env.name}/${body.name}`;
      const out: Finding[] = kids.length === 1 ? [] : [finding(`the Body holds ${kids.length} elements (${kids.map((k) => show(k.name)).join(', ')}), expected one`, { path })];
      if (hasText(body)) out.push(finding('the Body holds text outside its element', { path }));
      return out;
    }),
  },
  {
    ...envelope, level: 'MUST',
    id: 'SOAP-RESPONSE-ELEMENT',
    title: 'The Body holds UserDetailsResponse in the login namespace',
    requirement: `The Body's element is ${RECORD} in {service_login_namespace}.`,
    interpretation: 'The login namespace is configuration (SERVICE_LOGIN_NAMESPACE); the default is the reference\'s.',
    judge: overSoap(({ envelope: env, body }, ex) => {
      const first = body && elementChildren(body)[0];
      if (!first) return [finding('the Body holds no element', { path: `/${env.name}/${SOAP.body}` })];
      const path = `/${env.name}/${body.name}/${first.name}`;
      if (isSoap11Fault(first)) return [finding(`the Body holds a SOAP Fault: ${show(textContent(elementChildren(first).find((c) => c.name === SOAP.faultstring) ?? first))}`, { path })];
      const want = ex.settings.namespaces.login;
      return first.name === RECORD && first.ns === want ? [] : [finding(`the Body holds ${qname(first)}, expected {${want}}${RECORD}`, { path, actual: first.ns ?? '' })];
    }),
  },
  {
    ...envelope, level: 'MUST', clause: '4.2, 2.1',
    id: 'SOAP-MEMBER-NS',
    title: "The record's members are in the record's namespace",
    requirement: `Every child element of ${RECORD} is in the namespace of ${RECORD} itself.`,
    interpretation: 'A .NET client ignores members in any other namespace (DataContractSerializer), so an unqualified or foreign member is lost.',
    judge: overSoapRecord(({ record, path }) =>
      elementChildren(record).filter((c) => c.ns !== record.ns)
        .map((c) => finding(`${show(c.name)} is in ${shownNs(c.ns)}, not ${shownNs(record.ns)}`, { path: `${path}/${c.name}`, actual: c.ns ?? '' }))),
  },
  {
    ...envelope, level: 'SHOULD', clause: '2.1',
    id: 'SOAP-NESTED-NS',
    title: 'Nested data contracts are in the login namespace',
    requirement: 'Members of SystemAssociation, EnrollmentInfo, NonCongregateSettings and the payment settings are in {service_login_namespace}.',
    interpretation: 'The spec names only the record\'s namespace; the nested contracts\' namespace is the reference\'s reading (one contract namespace for the service). '
      + 'This check reports the namespace of every nested member, those that may be null included; a value-type member outside the record\'s namespace is also absent, which SOAP-MEMBERS-PRESENT fails (MUST).',
    judge: overSoapRecord(({ record, objects }, ex) => {
      const want = ex.settings.namespaces.login;
      const out: Finding[] = [];
      for (const o of objects) {
        if (o.element === record) continue;
        for (const c of elementChildren(o.element)) if (c.ns !== want) out.push(finding(`${show(c.name)} is in ${shownNs(c.ns)}`, { path: `${o.path}/${c.name}` }));
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
    judge: overSoapRecord(({ slots }, ex) => {
      const out: Finding[] = [];
      const expect = (e: XmlElement, ns: string, at: string) => { if (e.ns !== ns) out.push(finding(`${show(e.name)} is in ${shownNs(e.ns)}, expected ${ns}`, { path: at })); };
      for (const s of slots) {
        if (s.item && s.field.type.kind === 'array') expect(s.element, namespaceOf(s.field.type.soapItem.ns, ex.settings.namespaces), s.path);
        if (!s.item && s.type.kind === 'map') {
          const ns = namespaceOf(s.type.soapEntry.ns, ex.settings.namespaces);
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
