// Every typed value in the SOAP record (2 Types, 2.1), at every depth: the lexical forms of XML
// Schema after whitespace collapse for value types, and the spec's own datetime and guid forms.
import { collapse, ENUM_NAME, INT32_MAX, INT32_MIN, isDatetime, SOAP_DATETIME, SOAP_GUID, XSD_BOOLEAN, XSD_INTEGER } from '../contract/formats.js';
import { impersonateLogout } from '../contract/operations.js';
import { DAY_NAMES } from '../contract/records.js';
import { marker } from '../contract/sensitivity.js';
import { isValueType, type FieldType } from '../contract/types.js';
import { isElement, textContent } from '../xml/model.js';
import { finding, show, type Check, type Finding, type RuleMeta } from './check.js';
import { soapRecordKind } from './kinds.js';
import { overSoapRecord } from './soap-envelope.js';
import { isNil, type SoapSlot } from './walk-soap.js';

interface TypeRule extends RuleMeta {
  readonly applies: (type: FieldType) => boolean;
  /** Why `text` (whitespace-collapsed for value types) is wrong, or undefined when right. */
  readonly judge?: (text: string, type: FieldType) => string | undefined;
}

/** The slot as a message names it: the member's own name, or an item's name as received (quoted) and its place. */
const named = (s: SoapSlot): string => (s.item ? `${show(s.element.name)}${s.path.slice(s.path.lastIndexOf('['))}` : s.field.soap);

function typeCheck(rule: TypeRule): Check {
  const { applies, judge, level = 'MUST', ...meta } = rule;
  return {
    ...meta, level, area: 'SOAP record', operation: impersonateLogout.name, judges: soapRecordKind.judges, appliesTo: soapRecordKind.applies,
    judge: overSoapRecord(({ slots }) => slots.filter((s) => applies(s.type)).flatMap((s): Finding[] => {
      // Names, places and shown values only for a finding: most slots pass every rule.
      const at = () => ({ path: s.path, ...(s.field.sensitivity ? { sensitivity: s.field.sensitivity } : {}) });
      if (isNil(s.element)) return isValueType(s.type) ? [finding(`${named(s)} is nil; a ${s.type.kind} is a value type and cannot be null`, at())] : [];
      if (s.element.children.some(isElement)) return [finding(`${named(s)} holds elements, expected a ${s.type.kind}`, at())];
      const raw = textContent(s.element);
      const text = isValueType(s.type) ? collapse(raw) : raw;
      const why = judge?.(text, s.type);
      if (!why) return [];
      const shown = s.field.sensitivity ? marker(s.field.sensitivity, text) : show(text);
      return [finding(`${named(s)} is ${shown}: ${why}`, { ...at(), actual: text })];
    })),
  };
}

const kind = (k: FieldType['kind']) => (t: FieldType) => t.kind === k;
const openEnum = (t: FieldType) => t.kind === 'enum' && !t.closed;

export const SOAP_TYPE_CHECKS: readonly Check[] = [
  typeCheck({
    id: 'SOAP-DATETIME', title: 'Datetimes are YYYY-MM-DDThh:mm:ss', clause: '2 Types',
    requirement: 'Every datetime member is YYYY-MM-DDThh:mm:ss: no fractional digits, no zone, a real calendar instant.',
    interpretation: 'The spec departs from the platform here and the check keeps the spec: DataContractSerializer writes up to seven fractional digits whenever the value has a fraction (.NET 10 wrote <Expires>2026-12-21T19:41:00.1234567</Expires> for the reference\'s record: fixtures/dotnet/golden/soap/fixture.xml), so a .NET deployment whose datetimes carry sub-second parts fails this check.',
    applies: kind('datetime'),
    judge: (t) => (isDatetime(t, SOAP_DATETIME) ? undefined : 'expected YYYY-MM-DDThh:mm:ss (no fraction, no zone)'),
  }),
  typeCheck({
    id: 'SOAP-GUID', title: 'Guids are 8-4-4-4-12 hex digits', clause: '2 Types',
    requirement: 'Every guid member (SiteId, EnrollmentInfo/SiteId) is 32 hex digits with dashes 8-4-4-4-12.',
    interpretation: 'Either case of hex digit is accepted (.NET writes lower case).',
    applies: kind('guid'),
    judge: (t) => (SOAP_GUID.test(t) ? undefined : 'expected 8-4-4-4-12 hex digits'),
  }),
  typeCheck({
    id: 'SOAP-INTEGER', title: 'Integers are xs:int', clause: '2.1',
    requirement: 'Every integer member and AvailableYearsFor1099K item is in the lexical space of xs:int (optional sign, digits, 32-bit range).',
    interpretation: 'XML Schema collapses whitespace around the digits and allows a leading + or zeros; "42.0" and "1e3" are not xs:int.',
    applies: kind('integer'),
    judge: (t) => (!XSD_INTEGER.test(t) ? 'expected an xs:int (digits only)' : Number(t) < INT32_MIN || Number(t) > INT32_MAX ? 'outside the 32-bit range of xs:int' : undefined),
  }),
  typeCheck({
    id: 'SOAP-BOOLEAN', title: 'Booleans are xs:boolean', clause: '2.1',
    requirement: 'Every boolean member is in the lexical space of xs:boolean: true, false, 1 or 0.',
    interpretation: '"True" and "FALSE" are not xs:boolean; XML Schema collapses surrounding whitespace.',
    applies: kind('boolean'),
    judge: (t) => (XSD_BOOLEAN.test(t) ? undefined : 'expected true, false, 1 or 0'),
  }),
  typeCheck({
    id: 'SOAP-ENUM', title: 'Enums are member names', clause: '2.1',
    requirement: 'Every enum member (MealPatternVersionCode, OriginalUserTypeCode, ParentContactType, System, SystemId, SystemCode) is a .NET enum member name.',
    interpretation: 'Allowed values are not given (2.4), so any identifier passes; values beyond those seen are reported by SOAP-ENUM-SEEN.',
    applies: openEnum,
    judge: (t) => (ENUM_NAME.test(t) ? undefined : 'expected an enum member name'),
  }),
  typeCheck({
    id: 'SOAP-DAY-NAMES', title: 'MealDays items are day names', clause: '2.1',
    requirement: `Every MealDays item is one of ${DAY_NAMES.join(', ')}.`,
    applies: (t) => t.kind === 'enum' && t.closed,
    judge: (t) => ((DAY_NAMES as readonly string[]).includes(t) ? undefined : 'expected a day of the week'),
  }),
  typeCheck({
    id: 'SOAP-STRING', title: 'Strings hold text only', clause: '2.1',
    requirement: 'Every string member and string item holds character data only (or is nil).',
    applies: kind('string'),
  }),
  typeCheck({
    id: 'SOAP-ENUM-SEEN', title: 'Enum values are those the spec shows', clause: '2.1, 2.4', level: 'SHOULD',
    requirement: 'Enum members hold the values seen in the spec (Unspecified, Center, Unknown).',
    interpretation: 'Advisory: the full value sets are not given (2.4).',
    applies: openEnum,
    judge: (t, type) => (type.kind === 'enum' && !type.values.includes(t) ? `not a value the spec shows (${type.values.join(', ')})` : undefined),
  }),
];
