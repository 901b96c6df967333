// libxml2 (compiled to WebAssembly: xmllint-wasm) validating XML against an XSD set in fixtures/.
import { readdirSync, readFileSync } from 'node:fs';
import { validateXML } from 'xmllint-wasm';

const dir = (name: string) => new URL(`../../fixtures/xsd/${name}/`, import.meta.url);

/** Validates `xml` against `entry` of the schema set `set`; returns libxml2's messages (empty: valid). */
export async function xsdErrors(set: string, entry: string, xml: string): Promise<string[]> {
  const files = readdirSync(dir(set)).filter((f) => f.endsWith('.xsd'));
  const load = (f: string) => ({ fileName: f, contents: readFileSync(new URL(f, dir(set)), 'utf8') });
  const result = await validateXML({
    xml: [{ fileName: 'response.xml', contents: xml }],
    schema: [load(entry)],
    preload: files.filter((f) => f !== entry).map(load),
  });
  return result.valid ? [] : result.errors.map((e) => e.message);
}
