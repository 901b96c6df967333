// Every output a run leaves, as a reader could recover it: for scans of what reaches people.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';

export const files = (dir: string): string[] =>
  readdirSync(dir).flatMap((f) => (statSync(join(dir, f)).isDirectory() ? files(join(dir, f)) : [join(dir, f)]));

/** A file's text as a reader could recover it: the single-file HTML report embeds its data files
 *  (attachments included) base64-encoded as d("name","…"), so those are decoded and scanned too. */
export function readable(path: string): string {
  const text = readFileSync(path, 'utf8');
  if (!path.endsWith('.html')) return text;
  const embedded = [...text.matchAll(/d\("([^"]+)","([A-Za-z0-9+/=]*)"\)/g)];
  expect(embedded.length, 'embedded data files in the HTML report').toBeGreaterThan(50);
  return [text, ...embedded.map((m) => Buffer.from(m[2]!, 'base64').toString('utf8'))].join('\n');
}
