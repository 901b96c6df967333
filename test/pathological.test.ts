// Inputs built to break parsers: unclosed sensitive tags by the hundred thousand, a JSONP body
// that makes a backtracking regex quadratic, JSON nested 200 000 deep. Each is handled in one linear
// pass or refused before anything recurses. No wall time is asserted: the sizes are such that the
// old quadratic code took minutes, so a regression shows as a test timeout, not a flaky figure.
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { splitJsonp } from '../lib/json/jsonp.js';
import { parseJson } from '../lib/json/parse.js';
import { Redactor } from '../lib/reporting/redact.js';

const AFTER = 'the body has code after the call (only a ";", whitespace and comments may follow it)';
const deepJson = `{"a":${'['.repeat(200_000)}${']'.repeat(200_000)}}`;
const redactor = () => new Redactor({ showPersonalData: false, secrets: [] });

describe('pathological bodies', () => {
  it('200 000 unclosed <Email> tags: redacted in one pass; an element never closed hides all after it', () => {
    const body = `<r>${'<Email>x'.repeat(200_000)}<ApiKey>secret-key-1</ApiKey></r>`;
    const out = redactor().text(body);
    expect(out).not.toContain('secret-key-1');
    expect(out).toBe('<r><Email>«personal: string, 200012 chars»');
    // Closed ones are hidden one by one, the rest left as it was.
    expect(redactor().text(`<r>${'<Email>x</Email>'.repeat(3)}<ApiKey>secret-key-1</ApiKey></r>`)).toBe(`<r>${'<Email>«personal: string, 1 chars»</Email>'.repeat(3)}<ApiKey>«credential: string, 12 chars»</ApiKey></r>`);
  });

  it('a JSONP body that defeats backtracking regexes is read in one pass', () => {
    expect(splitJsonp(`a()${' '.repeat(400_000)}x`)).toEqual({ ok: false, error: AFTER });
    expect(splitJsonp(`a()${'/**/)'.repeat(100_000)}`)).toEqual({ ok: false, error: AFTER });
  });

  it('JSON nested 200 000 deep is refused before anything recurses, and withheld from reports', () => {
    expect(parseJson(deepJson)).toEqual({ ok: false, error: 'JSON that nests deeper than 64 levels (beyond any record of the interface; not read further)' });
    const r = redactor();
    r.learn(deepJson);
    expect(r.text(deepJson)).toBe(`«withheld: ${deepJson.length} characters; the text nests deeper than 64 levels (beyond any record of the interface; not read further)»`);
  });
});

describe('JSONP forms real writers produce', () => {
  const record = '{"userName":"x"}';
  it.each([
    [`cb(${record})`], [`cb(${record});`], [` \n cb ( ${record} ) ;\n`], [`/**/cb(${record})`], [`/**/ typeof cb === 'function' && cb(${record});`],
    [`// jsonp\ncb(${record})`],
    // Comments after the call, with or without a ";": a browser runs the script as the call alone.
    [`cb(${record});//x`], [`cb(${record}) /* x */`], [`cb(${record}) // :)`], [`cb(${record}) /* ) */ ; /* b */ // c\n`],
    [`cb(${record}) // x\n;\n`], [`/**/ typeof cb === 'function' && cb(${record}); // x`],
  ])('%j is the call cb(json), and JavaScript runs it as that call alone', (body) => {
    expect(splitJsonp(body)).toEqual({ ok: true, callback: 'cb', json: expect.stringMatching(/^\s*\{"userName":"x"\}\s*$/) });
    const calls: unknown[][] = [];
    runInNewContext(body, { cb: (...args: unknown[]) => calls.push(args) });
    expect(calls).toEqual([[JSON.parse(record)]]);
  });
  it.each([
    [record, 'the body is not of the form name(json)'],
    [`cb(${record}) + 1`, AFTER],
    [`cb(${record});cb(${record})`, AFTER],
    [`cb(${record}) /* x */ alert(1)`, AFTER], // a syntax error: no line ends between the two calls
    [`cb(${record}) /* x`, 'the body has a /* comment that is never closed'],
    [`cb(${record}); /* x`, 'the body has a /* comment that is never closed'],
    [`/* x cb(${record})`, 'the body has a /* comment that is never closed'],
    [`typeof other === 'function' && cb(${record})`, 'the typeof guard names other but calls cb'],
  ])('%j is refused', (body, error) => {
    expect(splitJsonp(body)).toEqual({ ok: false, error });
  });
  it.each([
    [`cb(${record});//x\nalert(1)`], [`cb(${record}) /* x\n */ alert(1)`], [`cb(${record}) //x\ralert(1)`],
    // \r and U+2028 end a // comment too: the code after one runs before the call.
    [`//x\ralert(1)\ncb(${record})`], [`//x\u2028alert(1)\ncb(${record})`],
  ])('%j runs alert(1) besides the call, and is refused', (body) => {
    expect(splitJsonp(body)).toEqual({ ok: false, error: AFTER });
    let alerts = 0;
    runInNewContext(body, { cb: () => undefined, alert: () => alerts++ });
    expect(alerts).toBe(1);
  });
  it('a ")" or "/*" inside a JSON string is the record\'s, not the end of the call', () => {
    const json = '{"userName":"x) /* \\" )"}';
    expect(splitJsonp(`cb(${json}) // )`)).toEqual({ ok: true, callback: 'cb', json });
  });
});
