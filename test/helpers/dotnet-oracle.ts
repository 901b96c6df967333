// The .NET oracle from TypeScript: finding dotnet, building and running test/oracle, the committed
// goldens in fixtures/dotnet/golden/, the reference's bytes for the same data, and comparisons of
// the two that name every difference (JSON by member and lexeme, XML by infoset, never prefixes).
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { visit } from 'jsonc-parser';
import { DEFAULT_NAMESPACES } from '../../lib/contract/namespaces.js';
import { Confirmation, UserDetails } from '../../lib/contract/records.js';
import type { JsonObject } from '../../lib/json/value.js';
import { COMPACT, writeJson } from '../../lib/json/write.js';
import { pathOf } from '../../lib/json/parse.js';
import { member, ROOT } from '../../lib/json/path.js';
import { fromRoot } from '../../lib/paths.js';
import { recordToJson, SERVICESTACK_JSON } from '../../lib/reference/json-record.js';
import { DEFAULT_PROFILE, writerStyle } from '../../lib/reference/profile.js';
import { DATA_CONTRACT, recordToXml, soapEnvelope } from '../../lib/reference/soap-record.js';
import { elementChildren, isElement, textContent, type XmlElement } from '../../lib/xml/model.js';
import { parseXml } from '../../lib/xml/parse.js';
import { writeXml } from '../../lib/xml/write.js';

export const ORACLE_PROJECT = fromRoot('test', 'oracle');
export const ORACLE_DLL = join(ORACLE_PROJECT, 'bin', 'Release', 'net10.0', 'Oracle.dll');
export const GOLDEN = fromRoot('fixtures', 'dotnet', 'golden');
export const FIXTURE = fromRoot('fixtures', 'reference', 'user-details.json');
export const CONFIRMATION = fromRoot('fixtures', 'reference', 'confirmation.json');

/** Why dotnet cannot be used here, or undefined when it can. */
export function dotnetAbsence(): string | undefined {
  const r = spawnSync('dotnet', ['--version'], { encoding: 'utf8', timeout: 60_000 });
  if (r.error) return `dotnet is not on PATH (${(r.error as NodeJS.ErrnoException).code ?? r.error.message})`;
  if (r.status !== 0) return `dotnet --version exited ${r.status}: ${r.stderr.trim().split('\n')[0]}`;
  return undefined;
}

/** Whether the built oracle is newer than every file of its project (its sources, project, lock file
 *  and NuGet configuration) and every source its project compiles from elsewhere (the contract's C#
 *  export): then MSBuild's own up-to-date check, by the same timestamps, would build nothing, and
 *  costs a dotnet start, 2 CPU-seconds and 5 s. */
export function oracleCurrent(): boolean {
  if (!existsSync(ORACLE_DLL)) return false;
  const built = statSync(ORACLE_DLL).mtimeMs;
  const own = readdirSync(ORACLE_PROJECT, { withFileTypes: true }).filter((e) => e.isFile()).map((e) => join(ORACLE_PROJECT, e.name));
  const included = [...readFileSync(join(ORACLE_PROJECT, 'Oracle.csproj'), 'utf8').matchAll(/<Compile Include="([^"]+)"/g)].map((m) => join(ORACLE_PROJECT, m[1]!));
  return [...own, ...included].every((f) => statSync(f).mtimeMs < built);
}

/** Restores (from the machine's NuGet copy, in locked mode) and builds the oracle, unless it is current. */
export function buildOracle(): void {
  if (oracleCurrent()) return;
  const r = spawnSync('dotnet', ['build', ORACLE_PROJECT, '-c', 'Release', '--nologo', '--disable-build-servers', '-p:RestoreLockedMode=true'], { encoding: 'utf8', timeout: 540_000 });
  if (r.status !== 0) {
    const errors = `${r.stdout}\n${r.stderr}`.split('\n').filter((l) => / error /.test(l));
    throw new Error(`dotnet build of test/oracle failed: ${[...new Set(errors)].slice(0, 5).join(' | ') || r.stderr.trim() || `exit ${r.status}`}`);
  }
}

/** Runs an oracle command. Asynchronously: its WCF client calls references served by this process. */
export async function runOracle(args: readonly string[]): Promise<void> {
  try {
    await promisify(execFile)('dotnet', [ORACLE_DLL, ...args], { encoding: 'utf8', timeout: 300_000, maxBuffer: 16 * 1024 * 1024 });
  } catch (e) {
    const { stderr, code } = e as { stderr?: string; code?: unknown };
    throw new Error(stderr?.trim() || `the oracle failed (${String(code)})`);
  }
}

/** The user-details records .NET wrote: "fixture" and the generated ones, by id. */
export const goldenIds = (dir = GOLDEN): string[] =>
  readdirSync(join(dir, 'soap')).filter((f) => f.endsWith('.xml')).map((f) => f.slice(0, -4)).sort();

export const goldenJson = (id: string, dir = GOLDEN) => readFileSync(join(dir, 'json', `${id}.json`), 'utf8');
export const goldenSoap = (id: string, dir = GOLDEN) => readFileSync(join(dir, 'soap', `${id}.xml`), 'utf8');

/** The data behind each golden record: its JSON (System.Text.Json keeps null dictionary values). */
export const goldenData = (dir = GOLDEN): Map<string, JsonObject> =>
  new Map(goldenIds(dir).map((id) => [id, JSON.parse(goldenJson(id, dir)) as JsonObject]));

/** The reference's JSON for a record, as its server writes it. */
export const referenceJson = (data: JsonObject, shape = UserDetails): string =>
  writeJson(recordToJson(shape, data, SERVICESTACK_JSON), COMPACT);

export const referenceConfirmationJson = (data: JsonObject): string => referenceJson(data, Confirmation);

/** The reference's SOAP envelope for a record, as its server writes it. */
export const referenceSoap = (data: JsonObject): string =>
  writeXml(soapEnvelope(recordToXml(UserDetails, data, DEFAULT_NAMESPACES, DATA_CONTRACT)), writerStyle(DEFAULT_PROFILE.xmlStyle, DEFAULT_NAMESPACES));

/** How the reference's bytes differ from .NET's at one place. */
export interface Difference {
  readonly record: string;
  readonly wire: 'json' | 'soap';
  readonly path: string;
  /** escape, null-entry and datetime-fraction are the documented ones (see DOCUMENTED). */
  readonly kind: 'order' | 'missing' | 'extra' | 'container' | 'lexeme' | 'escape' | 'name' | 'attribute' | 'text' | 'datetime-fraction' | 'null-entry';
  readonly reference: string;
  readonly dotnet: string;
}

/** Differences that are not defects, and why. */
export const DOCUMENTED: Readonly<Partial<Record<Difference['kind'], string>>> = {
  escape: 'JSON string escapes spelled differently for the same characters (System.Text.Json\'s default encoder writes <, >, &, \', + and every non-ASCII character as \\uXXXX; the reference writes them raw): the same string value, a legitimate lexical variation',
  'null-entry': 'a null dictionary value: System.Text.Json writes the entry as null, the reference leaves it out as ServiceStack does (servicestack-notes.md); both are legitimate (a null member may be omitted)',
  'datetime-fraction': 'interface.md 2 Types: SOAP datetimes have no fractional digits; DataContractSerializer writes them when the value has them. The spec wins: the reference drops them',
};

/**
 * The maps of the record (providerPaymentSettings): their entries are compared as a set. .NET leaves
 * a Dictionary's order unspecified, JSON key order carries no meaning and .NET readers build a
 * dictionary; and the reference's data, a JavaScript object, cannot even hold an integer-like key
 * ("0", "1001") after other keys. Member order everywhere else is compared exactly.
 */
const MAP_FIELDS = UserDetails.fields.filter((f) => f.type.kind === 'map');
const JSON_MAPS = new Set(MAP_FIELDS.map((f) => member(ROOT, f.json)));
const SOAP_MAPS = new Set(MAP_FIELDS.map((f) => `/Envelope/Body/${UserDetails.name}/${f.soap}`));
const keyOf = (entry: XmlElement) => textContent(elementChildren(entry).find((c) => c.name === 'Key') ?? entry);
const byKey = (entries: XmlElement[]) => [...entries].sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0));

interface JsonLayout {
  /** Object path -> member names in order; array path -> "[]" marker. */
  readonly containers: Map<string, string[] | '[]'>;
  /** Leaf path -> its lexeme exactly as written. */
  readonly leaves: Map<string, string>;
}

function jsonLayout(text: string): JsonLayout {
  const containers = new Map<string, string[] | '[]'>();
  const leaves = new Map<string, string>();
  visit(text, {
    onObjectBegin: (_o, _l, _sl, _sc, path) => { containers.set(pathOf(path()), []); },
    onArrayBegin: (_o, _l, _sl, _sc, path) => { containers.set(pathOf(path()), '[]'); },
    onObjectProperty: (name, _o, _l, _sl, _sc, path) => { (containers.get(pathOf(path())) as string[]).push(name); },
    onLiteralValue: (_v, offset, length, _sl, _sc, path) => { leaves.set(pathOf(path()), text.slice(offset, offset + length)); },
  });
  return { containers, leaves };
}

/** Member order and names per object, container kinds, and every leaf's lexeme. */
export function compareJson(record: string, reference: string, dotnet: string): Difference[] {
  const [r, n] = [jsonLayout(reference), jsonLayout(dotnet)];
  const out: Difference[] = [];
  const diff = (path: string, kind: Difference['kind'], ref: string, net: string) => out.push({ record, wire: 'json', path, kind, reference: ref, dotnet: net });
  for (const path of new Set([...r.containers.keys(), ...n.containers.keys()])) {
    const [a, b] = [r.containers.get(path), n.containers.get(path)];
    if (a === undefined || b === undefined || (a === '[]') !== (b === '[]')) {
      diff(path, 'container', a === undefined ? 'nothing' : a === '[]' ? 'an array' : 'an object', b === undefined ? 'nothing' : b === '[]' ? 'an array' : 'an object');
    } else if (a !== '[]' && b !== '[]' && (JSON_MAPS.has(path) ? [...a].sort().join('\0') !== [...b].sort().join('\0') : a.join('\0') !== b.join('\0'))) {
      for (const k of a.filter((k) => !b.includes(k))) diff(member(path, k), 'extra', 'present', 'absent');
      for (const k of b.filter((k) => !a.includes(k))) {
        const at = member(path, k);
        diff(at, JSON_MAPS.has(path) && n.leaves.get(at) === 'null' ? 'null-entry' : 'missing', 'absent', n.leaves.get(at) ?? 'present');
      }
      const [sa, sb] = [a.filter((k) => b.includes(k)), b.filter((k) => a.includes(k))];
      if (!JSON_MAPS.has(path) && sa.join('\0') !== sb.join('\0')) diff(path, 'order', sa.join(','), sb.join(','));
    }
  }
  for (const path of new Set([...r.leaves.keys(), ...n.leaves.keys()])) {
    const [a, b] = [r.leaves.get(path), n.leaves.get(path)];
    if (a === b || a === undefined || b === undefined) continue; // a missing leaf is a container or member difference
    const sameString = a.startsWith('"') && b.startsWith('"') && JSON.parse(a) === JSON.parse(b);
    diff(path, sameString ? 'escape' : 'lexeme', a, b);
  }
  return out;
}

const SOAP_DATETIME_WITH_FRACTION = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})\.\d{1,7}$/;
const qname = (e: XmlElement) => `{${e.ns ?? ''}}${e.name}`;
const attrs = (e: XmlElement) => e.attrs.map((a) => `{${a.ns ?? ''}}${a.name}=${a.value}`).sort().join(' ');

/** The two documents' infosets: element names and namespaces, order, attributes (xsi:nil), and
 *  character data. Prefixes, namespace declarations and empty-element spelling do not count. */
export function compareSoap(record: string, reference: string, dotnet: string): Difference[] {
  const [r, n] = [parseXml(reference), parseXml(dotnet)];
  if (!r.ok || !n.ok) throw new Error(`${record}: not well-formed XML (${r.ok ? '.NET' : 'reference'}: ${r.ok ? (n as { error: string }).error : r.error})`);
  const out: Difference[] = [];
  const diff = (path: string, kind: Difference['kind'], ref: string, net: string) => out.push({ record, wire: 'soap', path, kind, reference: ref, dotnet: net });
  const walk = (a: XmlElement, b: XmlElement, path: string) => {
    if (qname(a) !== qname(b)) { diff(path, 'name', qname(a), qname(b)); return; }
    if (attrs(a) !== attrs(b)) diff(path, 'attribute', attrs(a), attrs(b));
    const [ka, kb] = SOAP_MAPS.has(path) ? [byKey(elementChildren(a)), byKey(elementChildren(b))] : [elementChildren(a), elementChildren(b)];
    if (!ka.length && !kb.length) {
      const [ta, tb] = [textContent(a), textContent(b)];
      if (ta !== tb) {
        const fraction = SOAP_DATETIME_WITH_FRACTION.exec(tb);
        diff(path, fraction && fraction[1] === ta ? 'datetime-fraction' : 'text', JSON.stringify(ta), JSON.stringify(tb));
      }
      return;
    }
    const stray = (e: XmlElement) => e.children.some((c) => !isElement(c) && c.text.trim() !== '');
    if (stray(a) !== stray(b)) diff(path, 'text', 'mixed content', 'element content');
    const [na, nb] = [ka.map(qname), kb.map(qname)];
    if (na.join(' ') !== nb.join(' ')) {
      for (const q of na.filter((q) => !nb.includes(q))) diff(`${path}/${q}`, 'extra', 'present', 'absent');
      for (const q of nb.filter((q) => !na.includes(q))) diff(`${path}/${q}`, 'missing', 'absent', 'present');
      const [sa, sb] = [na.filter((q) => nb.includes(q)), nb.filter((q) => na.includes(q))];
      if (sa.join(' ') !== sb.join(' ')) diff(path, 'order', sa.join(' '), sb.join(' '));
      return;
    }
    ka.forEach((c, i) => walk(c, kb[i]!, `${path}/${c.name}${ka.filter((x) => x.name === c.name).length > 1 ? `[${ka.slice(0, i + 1).filter((x) => x.name === c.name).length}]` : ''}`));
  };
  walk(r.root, n.root, `/${r.root.name}`);
  return out;
}
