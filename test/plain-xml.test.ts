// The plain-document fast path of parseXml (lib/xml/plain-parse.ts) against saxes, the conforming
// parser it stands in for: on every document it reads, the same tree (names, namespaces, attributes
// in order, text, lines); every document saxes refuses, it hands back. Its documents: the fixtures'
// SOAP and XML bodies, hand-made edge cases, and thousands of seeded one-character mutations of them.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseWithSaxes } from '../lib/xml/parse.js';
import { parsePlainXml } from '../lib/xml/plain-parse.js';

const xmlFiles = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
  d.isDirectory() ? xmlFiles(join(dir, d.name)) : d.name.endsWith('.xml') ? [join(dir, d.name)] : []);
const FIXTURES = xmlFiles('fixtures').map((f) => readFileSync(f, 'utf8').replace(/^\uFEFF/, ''));

const EDGES = [
  '<a/>', '  <a/>\n\n', '<a>\n<b\n x="1"\n/>\n<c y=\'2\'  >t&amp;&#x41;&#66;&lt;&gt;&quot;&apos;</c></a>',
  '<?xml version="1.0" encoding="utf-8"?>\n<s:E xmlns:s="urn:s"><s:B xmlns="urn:d" xmlns:i="urn:i"><R i:nil="true" q="v"/></s:B></s:E>\n',
  '<?xml version=\'1.0\' standalone="yes" ?><a/>', '<a xmlns="urn:x"><b xmlns=""><c/></b></a>', '<a x = "1" y="&#10;&#xD;"></a >',
  '<a p:x="1" xmlns:p="urn:p" xmlns:q="urn:p" q:y="2"/>', '<a><![CDATA[x]]></a>', '<a><!-- c --></a>', '<?pi x?><a/>', '<!DOCTYPE a><a/>',
  '<a>]]></a>', '<a>\r\n</a>', '<a>😀</a>', '<a>\uD83D</a>', '<a>\u0001</a>', '<a x="\t"/>', '<a p:x="1" xmlns:p="urn:p" xmlns:q="urn:p" q:x="2"/>',
  '<a x="1" x="2"/>', '<p:a/>', '<a xmlns:p=""/>', '<xml:a/>', '<a xml:lang="en"/>', '<a>&nbsp;</a>', '<a>&#0;</a>', '<a>&#xFFFE;</a>',
  '<a></b>', '<a>', '<a/><b/>', 'x<a/>', '<a/>x', '<a b/>', '<a b="<"/>', '<?xml version="1.1"?><a/>', ' <?xml version="1.0"?><a/>',
  `<a>${'<b>'.repeat(70)}${'</b>'.repeat(70)}</a>`, `<a ${Array.from({ length: 70 }, (_, k) => `a${k}="1"`).join(' ')}/>`, '',
];

/** The same tree, or a hand-back; never a tree where saxes refuses. */
function agrees(doc: string): boolean {
  const plain = parsePlainXml(doc);
  const saxes = parseWithSaxes(doc);
  if (!plain) return saxes.ok;
  expect(saxes.ok, doc).toBe(true);
  if (saxes.ok) expect({ root: plain.root, declaration: plain.declaration }, doc).toStrictEqual({ root: saxes.root, declaration: saxes.declaration });
  return saxes.ok;
}

describe('parsePlainXml against saxes', () => {
  it('builds the tree saxes builds for every fixture it reads, and reads the SOAP answers', () => {
    let read = 0;
    for (const doc of FIXTURES) { agrees(doc); if (parsePlainXml(doc)) read++; }
    expect(FIXTURES.length).toBeGreaterThan(100);
    // The .NET golden answers use only what the plain path reads (most of the files).
    expect(read).toBeGreaterThan(FIXTURES.length / 2);
  });

  it('agrees on hand-made edge cases, reading the plain ones and handing back the rest', () => {
    for (const doc of EDGES) agrees(doc);
    expect(parsePlainXml(EDGES[2]!)).toBeDefined();
    expect(parsePlainXml(EDGES[3]!)?.declaration).toBe(true);
    for (const odd of ['<a><![CDATA[x]]></a>', '<a>\r\n</a>', '<a/><b/>', '<a x="1" x="2"/>', '<a>&nbsp;</a>']) expect(parsePlainXml(odd), odd).toBeUndefined();
  });

  it('agrees on 6,000 seeded one-character mutations of the fixtures', () => {
    let seed = 24;
    const rand = (n: number) => { seed = (seed * 1103515245 + 12345) % 2 ** 31; return seed % n; };
    const CHARS = ['<', '>', '&', ';', '"', '\'', ':', '/', '=', ' ', '\n', '\r', ']', '!', '?', 'x', '#', 'xmlns:', '&#1;', '&#x41;', '\u0001'];
    const small = FIXTURES.filter((d) => d.length < 20_000);
    let refused = 0;
    for (let k = 0; k < 6000; k++) {
      const doc = small[rand(small.length)]!;
      const at = rand(doc.length);
      const mutated = rand(2) ? doc.slice(0, at) + doc.slice(at + 1) : doc.slice(0, at) + CHARS[rand(CHARS.length)] + doc.slice(at);
      if (!agrees(mutated)) refused++;
    }
    // The mutations reach broken documents, not only harmless ones.
    expect(refused).toBeGreaterThan(1000);
  });
});
