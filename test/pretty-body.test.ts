// A body as the HTML report indents it: only whitespace between tokens changes, every token stays as
// written, and what does not read whole as JSON or XML is left alone (its exact bytes are beside it).
import { readFileSync } from 'node:fs';
import { applyEdits, format } from 'jsonc-parser';
import { describe, expect, it } from 'vitest';
import { MAX_PRETTY_CHARS, prettyBody, prettyMessage } from '../lib/reporting/pretty-body.js';

describe('prettyBody', () => {
  it('indents JSON and keeps each token as written: 42.0, escapes, a key written twice', () => {
    expect(prettyBody('{"a":42.0,"b":["\\u00e9",true],"a":null,"c":{}}')).toBe('{\n  "a": 42.0,\n  "b": [\n    "\\u00e9",\n    true\n  ],\n  "a": null,\n  "c": {}\n}');
  });

  it('indents XML element by element, keeps text-only elements on one line, entities and CDATA as written', () => {
    const xml = '<?xml version="1.0"?><s:E xmlns:s="u"><s:B a="x>y"><N>&lt;b&gt;</N><C><![CDATA[a<b>]]></C><Z i:nil="true"/><Empty></Empty></s:B></s:E>';
    const pretty = prettyBody(xml)!;
    expect(pretty).toBe('<?xml version="1.0"?>\n<s:E xmlns:s="u">\n  <s:B a="x>y">\n    <N>&lt;b&gt;</N>\n    <C><![CDATA[a<b>]]></C>\n    <Z i:nil="true"/>\n    <Empty></Empty>\n  </s:B>\n</s:E>');
    expect(pretty.replace(/\n */g, '')).toBe(xml);
  });

  it('reads any element name as text, never as a pattern', () => {
    expect(prettyBody('<a(*><b>1</b><c>2</c  ></a(*>')).toBe('<a(*>\n  <b>1</b>\n  <c>2</c  >\n</a(*>');
  });

  it('indents JSON exactly as jsonc-parser\'s applyEdits would: a record, laid-out and crooked whitespace, empty containers, escapes', () => {
    const golden = readFileSync(new URL('../fixtures/golden/login.json', import.meta.url), 'utf8');
    const record = golden.slice(golden.indexOf('\n\n') + 2);
    const bodies = [record, JSON.stringify(JSON.parse(record), null, 4), ' \t{ "a" :\r\n[ 1 ,2,{ } ,[ ]],"b\\"c":"\\u00e9 x" }\n', '[]', '"x"', '[[[[1]]],{"z":{"y":{"x":-0.5e3}}}]'];
    for (const body of bodies) {
      const expected = applyEdits(body, format(body, undefined, { tabSize: 2, insertSpaces: true, eol: '\n' }));
      expect(prettyBody(body) ?? body, body.slice(0, 40)).toBe(expected);
    }
  });

  it('leaves alone what does not read whole: cut-short JSON, JSONP, mixed content, unbalanced tags, text', () => {
    for (const body of ['{"a":1', 'cb({"a":1})', '<a>x<b/>y</a>', '<a><b></a>', 'plain text', '{"a":1} trailing']) expect(prettyBody(body), body).toBeUndefined();
  });

  it('leaves a body longer than the bound as received, and indents one at the bound', () => {
    const json = (n: number) => `{"a":"${'x'.repeat(n - 8)}"}`;
    expect(json(MAX_PRETTY_CHARS)).toHaveLength(MAX_PRETTY_CHARS);
    expect(prettyBody(json(MAX_PRETTY_CHARS))).toBe(`{\n  "a": "${'x'.repeat(MAX_PRETTY_CHARS - 8)}"\n}`);
    expect(prettyBody(json(MAX_PRETTY_CHARS + 1))).toBeUndefined();
  });

  it('re-indents a shown message\'s body only, its start line and headers untouched', () => {
    expect(prettyMessage('HTTP 200\ncontent-type: application/json\n\n{"a":[1]}')).toBe('HTTP 200\ncontent-type: application/json\n\n{\n  "a": [\n    1\n  ]\n}\n');
    expect(prettyMessage('HTTP 204\n\n')).toBeUndefined();
  });
});
