// Documents generated from the code. `npm run docs` writes them; test/docs.test.ts fails when a
// committed copy is stale.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { checksMarkdown } from './checks/docs.js';
import { fromRoot } from './paths.js';

export const GENERATED_DOCS: Readonly<Record<string, () => string>> = {
  'docs/checks.md': checksMarkdown,
};

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const [path, make] of Object.entries(GENERATED_DOCS)) {
    writeFileSync(fromRoot(path), make());
    process.stdout.write(`wrote ${path}\n`);
  }
}
