// Every output a run leaves, as a reader could recover it: for scans of what reaches people. And a
// summary.json rewritten with its manifest's hash, as a forger or an older harness would leave it.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
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

/** Writes `text` as the directory's summary.json and its SHA-256 into the manifest, as a forger would
 *  (or an older harness, that judged the same results otherwise). */
export function forgeSummary(dir: string, text: string): void {
  writeFileSync(join(dir, 'summary.json'), text);
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { files: Record<string, string> };
  manifest.files['summary.json'] = createHash('sha256').update(text).digest('hex');
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest));
}
