// The SOAP record's shape (2.1): members present, names exact, ordinal order at every level,
// Settings nil, collection items and dictionary entries as .NET writes them.
import { impersonateLogout } from '../contract/operations.js';
import { UserDetails } from '../contract/records.js';
import { mapEntryName } from '../contract/data-contract.js';
import { fieldsOn, isValueType, MAP_ENTRY, ordinalCompare, perShape } from '../contract/types.js';
import { elementChildren, textContent, type XmlElement } from '../xml/model.js';
import { finding, show, type Check, type Finding } from './check.js';
import { soapRecordKind } from './kinds.js';
import { overSoapRecord, shownNs } from './soap-envelope.js';
import { isNil, type SoapObjectAt } from './walk-soap.js';

const record = {
  area: 'SOAP record', operation: impersonateLogout.name, clause: '2.1', judges: soapRecordKind.judges, appliesTo: soapRecordKind.applies,
} as const;

/** SOAP-only members (Settings): present in SOAP, nil in every response the spec shows. */
const SOAP_ONLY = UserDetails.fields.filter((f) => f.only === 'soap').map((f) => f.soap);

/** Findings over every contract-shaped element of the record (the record first). */
const overObjects = (look: (o: SoapObjectAt, isRoot: boolean) => Finding[]): Check['judge'] =>
  overSoapRecord(({ record: rec, objects }) => objects.flatMap((o) => look(o, o.element === rec)));

const knownNames = perShape((shape) => new Set(fieldsOn(shape, 'soap').map((f) => f.soap)));
/** Lower-cased member name -> its exact name. */
const byLowerName = perShape((shape) => new Map(fieldsOn(shape, 'soap').map((f) => [f.soap.toLowerCase(), f.soap])));

/** Adjacent known members out of ordinal order (a repeated member counts too). */
function orderFindings(o: SoapObjectAt): Finding[] {
  const known = knownNames(o.shape);
  const names = elementChildren(o.element).map((c) => c.name).filter((n) => known.has(n));
  const out: Finding[] = [];
  for (let i = 1; i < names.length; i++) {
    const [a, b] = [names[i - 1]!, names[i]!];
    if (ordinalCompare(a, b) >= 0) {
      out.push(finding(a === b ? `${b} appears twice` : `${b} comes after ${a}; ordinal order puts it before`, { path: `${o.path}/${b}` }));
    }
  }
  return out;
}

export const SOAP_RECORD_CHECKS: readonly Check[] = [
  {
    ...record, level: 'MUST',
    id: 'SOAP-MEMBERS-PRESENT',
    title: 'Every value-type member is present, at every level',
    requirement: 'Every integer, boolean, datetime, guid and enum member of the record and of each nested object is present.',
    interpretation: 'String, array, object and map members may be null: written as xsi:nil or omitted (.NET EmitDefaultValue), so their absence is legitimate. '
      + 'A member is present only in the record\'s namespace, at every level: DataContractSerializer binds a member only in its data contract\'s namespace and skips an element of that name in any other (docs/spec/servicestack-notes.md), so such an element is no member. '
      + 'Interpretation for nested members (SystemAssociation, EnrollmentInfo, NonCongregateSettings, the payment-settings value): the spec names the record\'s namespace only (4.2); their contracts are taken to share it, as .NET writes them (fixtures/dotnet/golden/soap, observed) and as the reference does. '
      + 'SOAP-MEMBER-NS and SOAP-NESTED-NS report the namespace itself, for every member.',
    judge: overSoapRecord(({ record: rec, objects }) => objects.flatMap((o) => {
      const kids = elementChildren(o.element);
      const bound = new Set(kids.filter((c) => c.ns === rec.ns).map((c) => c.name));
      return fieldsOn(o.shape, 'soap').filter((f) => isValueType(f.type) && !bound.has(f.soap)).map((f) => {
        const path = `${o.path}/${f.soap}`;
        // Named so, but in another namespace: not the contract's member, so the member is absent.
        const elsewhere = kids.find((c) => c.name === f.soap);
        return elsewhere
          ? finding(`${f.soap} is missing: the ${f.soap} there is in ${shownNs(elsewhere.ns)}, not the record's namespace ${shownNs(rec.ns)}, and DataContractSerializer binds no member in another namespace`, { path, actual: elsewhere.ns ?? '' })
          : finding(`${f.soap} is missing`, { path });
      });
    })),
  },
  {
    ...record, level: 'MUST',
    id: 'SOAP-MEMBER-NAMES',
    title: 'Member names are exact (case included)',
    requirement: 'No member is written under a name that differs from the spec\'s only by case (HXUserTypeCode, not HxUserTypeCode).',
    interpretation: 'XML names are case-sensitive and a .NET client binds by exact name; an element that is no member at all is reported by SOAP-UNKNOWN-MEMBERS.',
    judge: overObjects((o) => {
      const byLower = byLowerName(o.shape);
      const known = knownNames(o.shape);
      return elementChildren(o.element).filter((c) => !known.has(c.name) && byLower.has(c.name.toLowerCase()))
        .map((c) => finding(`${show(c.name)} should be ${byLower.get(c.name.toLowerCase())}`, { path: `${o.path}/${c.name}`, actual: c.name }));
    }),
  },
  {
    ...record, level: 'MUST',
    id: 'SOAP-ORDER',
    title: 'Record members are in ordinal alphabetical order',
    requirement: 'The members of UserDetailsResponse appear in alphabetical order by ordinal (code-unit) comparison, as DataContractSerializer writes them.',
    interpretation: 'Section 2.1 says "alphabetical order of element name" without naming the comparison; ordinal (code-unit) order is the one DataContractSerializer writes and reads in (docs/spec/servicestack-notes.md, DataContractSerializer, observed), and a member out of its order is skipped by such a reader. So HXUserTypeCode before HadPinCode, IsARASHybrid before IsAccountingActive, where a dictionary order would put them after. Omitted null members leave no gap to judge; only present known members are compared.',
    judge: overObjects((o, isRoot) => (isRoot ? orderFindings(o) : [])),
  },
  {
    ...record, level: 'MUST',
    id: 'SOAP-ORDER-NESTED',
    title: 'Nested members are in ordinal alphabetical order',
    requirement: 'The members of each SystemAssociation, EnrollmentInfo, NonCongregateSettings and payment-settings value appear in ordinal alphabetical order.',
    interpretation: 'The spec orders the record\'s elements (section 2.1) and says nothing of nested objects\' members, whose tables list them in another order: the rule is DataContractSerializer\'s for every data contract, nested ones included (docs/spec/servicestack-notes.md, DataContractSerializer, observed), which skips a member out of its order.',
    judge: overObjects((o, isRoot) => (isRoot ? [] : orderFindings(o))),
  },
  {
    ...record, level: 'MUST',
    id: 'SOAP-SETTINGS-NIL',
    title: 'Settings is present and nil',
    requirement: 'The record holds Settings with xsi:nil="true" (XML Schema instance namespace, any prefix) and no content.',
    interpretation: 'The spec shows Settings nil in the SOAP response, so it is required present and nil. (An XSD written independently from the spec reads it as an optional member; this check keeps the spec\'s literal reading.)',
    judge: overSoapRecord(({ record: rec, path }) => SOAP_ONLY.flatMap((name): Finding[] => {
      const present = elementChildren(rec).filter((c) => c.name === name);
      const at = { path: `${path}/${name}` };
      if (present.length === 0) return [finding(`${name} is missing; the spec has it nil`, at)];
      return present.flatMap((s): Finding[] => {
        if (!isNil(s)) {
          const stray = s.attrs.find((a) => a.name === 'nil');
          return [finding(stray ? `${name} has nil=${show(stray.value)} in ${shownNs(stray.ns)}, not xsi:nil="true"` : `${name} is not nil`, at)];
        }
        return elementChildren(s).length || textContent(s).trim() ? [finding(`${name} is nil but has content`, at)] : [];
      });
    })),
  },
  {
    ...record, level: 'MUST',
    id: 'SOAP-ARRAY-ITEMS',
    title: 'Collection items have the right element names',
    requirement: 'AvailableYearsFor1099K holds int items; Roles, Permissions and PossibleLoginTypes string items; MealDays DayOfWeek items; AssociatedIds SystemAssociation items; nothing else.',
    judge: overSoapRecord(({ slots }) => slots.flatMap((s): Finding[] => {
      if (s.item || s.type.kind !== 'array' || isNil(s.element)) return [];
      const want = s.type.soapItem.name;
      const out = elementChildren(s.element).filter((c) => c.name !== want)
        .map((c) => finding(`${s.field.soap} holds ${show(c.name)}, expected ${want} items`, { path: `${s.path}/${c.name}`, actual: c.name }));
      if (textContent(s.element).trim()) out.push(finding(`${s.field.soap} holds text instead of ${want} items`, { path: s.path }));
      return out;
    })),
  },
  {
    ...record, level: 'MUST',
    id: 'SOAP-MAP-ENTRIES',
    title: 'Payment settings are Key/Value entries',
    requirement: 'ProviderPaymentSettings holds entries, each with exactly a Key (a string, not nil) then a Value.',
    interpretation: 'The entry element\'s name is generated by .NET (KeyValueOfstring…, judged by SOAP-ENTRY-NAME); only its Key/Value content is required here.',
    judge: overSoapRecord(({ slots }) => slots.flatMap((s): Finding[] => {
      if (s.type.kind !== 'map' || isNil(s.element)) return [];
      return elementChildren(s.element).flatMap((entry, i): Finding[] => {
        const at = { path: `${s.path}/${entry.name}[${i + 1}]` };
        const kids = elementChildren(entry);
        if (kids.length !== 2 || kids[0]!.name !== MAP_ENTRY.key || kids[1]!.name !== MAP_ENTRY.value) {
          return [finding(`an entry holds ${kids.map((k) => show(k.name)).join(', ') || 'nothing'}, expected ${MAP_ENTRY.key}, ${MAP_ENTRY.value}`, at)];
        }
        const key = kids[0] as XmlElement;
        if (isNil(key)) return [finding('an entry\'s Key is nil', at)];
        return elementChildren(key).length ? [finding('an entry\'s Key holds elements, not a string', at)] : [];
      });
    })),
  },
  {
    ...record, level: 'SHOULD',
    id: 'SOAP-UNKNOWN-MEMBERS',
    title: 'No members beyond the spec\'s',
    requirement: 'The record and its nested objects hold no element the spec does not list.',
    interpretation: 'Advisory: the spec lists the members but does not forbid others; a .NET client ignores unknown elements.',
    judge: overObjects((o) => {
      const lower = byLowerName(o.shape);
      return elementChildren(o.element).filter((c) => !lower.has(c.name.toLowerCase()))
        .map((c) => finding(`${show(c.name)} is not a member of ${o.shape.name}`, { path: `${o.path}/${c.name}`, actual: c.name }));
    }),
  },
  {
    ...record, level: 'SHOULD',
    id: 'SOAP-ENTRY-NAME',
    title: 'Dictionary entries are named as .NET names them',
    requirement: 'Each ProviderPaymentSettings entry element is named as DataContractSerializer names it for the configured login namespace (KeyValueOfstringProviderPaymentSettings{digest}).',
    interpretation: 'The spec says only "Key/Value pair". .NET names entries KeyValueOf{key}{value}{digest of the namespaces} and a .NET reader silently skips entries under any other name (fixtures/dotnet/golden/: KeyValueOfstringProviderPaymentSettings3EALVCDt for the default namespace), so a client built on .NET would lose them.',
    judge: overSoapRecord(({ slots }, ex) => slots.flatMap((s) => {
      if (s.type.kind !== 'map' || isNil(s.element)) return [];
      const want = mapEntryName(s.type, ex.settings.namespaces);
      return elementChildren(s.element).filter((e) => e.name !== want)
        .map((e) => finding(`an entry is named ${show(e.name)}; .NET names it ${want} and skips any other`, { path: `${s.path}/${e.name}`, actual: e.name }));
    })),
  },
];
