// Writes the artefacts derived from the contract into fixtures/ (`npm run contract:export`).
// test/contract-artefacts.test.ts fails when a committed file differs from its derivation.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fromRoot } from '../paths.js';
import { csharpContract } from './csharp.js';
import { exampleRecord } from './examples.js';
import { allJsonSchemas } from './json-schema.js';
import { OPENAPI_FILE, openApiDocument, WSDL_FILE } from './openapi.js';
import { OPERATIONS } from './operations.js';
import { typescriptContract } from './typescript.js';
import { serviceWsdl } from './wsdl.js';
import { recordXsds } from './xsd.js';

export const FIXTURES = fromRoot('fixtures');

/** Relative path under fixtures/ -> file content. */
export function derivedArtefacts(): Record<string, string> {
  const files: Record<string, string> = {};
  for (const [name, schema] of Object.entries(allJsonSchemas())) files[`schemas/${name}`] = `${JSON.stringify(schema, null, 2)}\n`;
  for (const op of OPERATIONS) files[`requests/${op.request.name}.json`] = `${JSON.stringify(exampleRecord(op.request), null, 2)}\n`;
  for (const [name, xsd] of Object.entries(recordXsds())) files[`xsd/contract/${name}`] = xsd;
  files['dotnet/Contract.cs'] = csharpContract();
  files['typescript/contract.ts'] = typescriptContract();
  files[OPENAPI_FILE] = `${JSON.stringify(openApiDocument(), null, 2)}\n`;
  files[WSDL_FILE] = serviceWsdl();
  return files;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const [rel, content] of Object.entries(derivedArtefacts())) {
    const path = join(FIXTURES, rel);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content);
    process.stdout.write(`wrote fixtures/${rel}\n`);
  }
}
