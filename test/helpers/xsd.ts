// libxml2 (compiled to WebAssembly: xmllint-wasm) validating XML against an XSD set in fixtures/.
import { readdirSync, readFileSync } from 'node:fs';
import { validateXML } from 'xmllint-wasm';

const dir = (name: string) => new URL(`../../fixtures/xsd/${name}/`, import.meta.url);

/** Validates each document against `entry` of the schema set `set`, in one libxml2 run; per document, its messages (empty: valid). */
export async function xsdErrorsEach(set: string, entry: string, xmls: readonly string[]): Promise<string[][]> {
  const files = readdirSync(dir(set)).filter((f) => f.endsWith('.xsd'));
  const load = (f: string) => ({ fileName: f, contents: readFileSync(new URL(f, dir(set)), 'utf8') });
  const result = await validateXML({
    xml: xmls.map((contents, i) => ({ fileName: `doc${i}.xml`, contents })),
    schema: [load(entry)],
    preload: files.filter((f) => f !== entry).map(load),
  });
  return xmls.map((_, i) => result.errors.filter((e) => e.loc?.fileName === `doc${i}.xml`).map((e) => e.message));
}

export const xsdErrors = async (set: string, entry: string, xml: string): Promise<string[]> =>
  (await xsdErrorsEach(set, entry, [xml]))[0]!;
