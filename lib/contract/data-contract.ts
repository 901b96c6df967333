// Names the .NET platform generates, computed here so that the reference, the XSDs and the C#
// export agree with what .NET really writes (test/dotnet-oracle.test.ts holds them to .NET's own
// output, fixtures/dotnet/golden/).
import { createHash } from 'node:crypto';
import { namespaceOf, type ServiceNamespaces } from './namespaces.js';
import type { FieldType } from './types.js';

/** The XML Schema namespace: data-contract namespace of string, int and the other primitives. */
export const XML_SCHEMA = 'http://www.w3.org/2001/XMLSchema';

/**
 * DataContractSerializer's digest of generic arguments' namespaces (DataContract.GetNamespacesDigest):
 * MD5 of " {parameter count} {ns1} {ns2}…" in UTF-8, its first six bytes in base64 without "=",
 * "/" written "_S" and "+" written "_P". .NET appends it to a generic contract's name whenever an
 * argument's namespace is not built in, so the name changes with the deployment's namespace.
 */
export function namespacesDigest(namespaces: readonly string[]): string {
  const text = ` ${namespaces.length} ${namespaces.join(' ')}`;
  return createHash('md5').update(text, 'utf8').digest().subarray(0, 6).toString('base64')
    .replace(/=/g, '').replace(/\//g, '_S').replace(/\+/g, '_P');
}

/**
 * The element DataContractSerializer writes for each entry of a Dictionary<string, T>:
 * KeyValueOfstring{T}{digest}. .NET 10 wrote KeyValueOfstringProviderPaymentSettings3EALVCDt for
 * the default login namespace; an entry under any other name is silently skipped by a .NET reader.
 */
export function mapEntryName(type: Extract<FieldType, { kind: 'map' }>, ns: ServiceNamespaces): string {
  const valueNs = namespaceOf('login', ns); // the value contract lives in the record's namespace
  return `${type.soapEntry.name}${namespacesDigest([XML_SCHEMA, valueNs])}`;
}

/**
 * ServiceStack.Text's camelCase (TextCase.CamelCase, StringExtensions.ToCamelCase): the leading run
 * of capitals is lower-cased, except the last one when a lower-case letter follows it. So a .NET
 * property HXUserTypeCode is written hxUserTypeCode and JToken jToken, exactly the spec's pairs.
 * It applies only to property names: a [DataMember(Name = …)] is written verbatim.
 */
export function serviceStackCamelCase(name: string): string {
  const upper = (c: string | undefined) => c !== undefined && c >= 'A' && c <= 'Z';
  let out = '';
  let leading = true;
  for (let i = 0; i < name.length; i++) {
    const c = name[i]!;
    const next = i < name.length - 1 ? name[i + 1] : 'A';
    if (leading && upper(c) && (upper(next) || i === 0)) out += c.toLowerCase();
    else { leading = false; out += c; }
  }
  return out;
}
