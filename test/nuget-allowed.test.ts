// The .NET oracle builds only on packages the machines' NuGet list allows. The list
// (/work/.library/env/packages/nuget.tsv on the project's machines; not on every CI machine) marks
// some packages not-to-use in its second column; NOT_TO_USE below is that column's extract, and
// where the list is present this test holds the extract to it.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../lib/paths.js';

/** Rows of nuget.tsv marked not-to-use (2026-11-25), by name. ServiceStack.Text: "the vendor's own
 *  terms, and its source is under the AGPL" (issue 23; System.Text.Json replaces it). */
const NOT_TO_USE: readonly string[] = [
  'aspose.cells', 'aspose.diagram', 'aspose.email', 'aspose.imaging', 'aspose.pdf.drawing', 'aspose.slides.net', 'aspose.words',
  'EntityFramework.IBM.DB2', 'EPPlus.Interfaces', 'EPPlus.System.Drawing', 'MatriX.Mono', 'Microsoft.AspNet.Razor',
  'Microsoft.AspNet.WebApi.Client', 'Microsoft.AspNet.WebApi.Core', 'Microsoft.AspNet.WebApi.WebHost', 'Microsoft.Azure.DocumentDB.Core',
  'Microsoft.Data.SqlClient.SNI.runtime', 'Microsoft.Identity.Client.NativeInterop', 'Microsoft.Management.Infrastructure.Runtime.Win',
  'Microsoft.SqlServer.Types', 'Microsoft.Testing.Extensions.CodeCoverage', 'Microsoft.Testing.Extensions.Retry',
  'Microsoft.VisualStudio.Azure.Containers.Tools.Targets', 'Newtonsoft.Json.Schema', 'ServiceStack.Text', 'SixLabors.PolygonClipper',
  'SpecFlow.Actions.Configuration', 'SpecFlow.Actions.Playwright', 'SpecFlow.Plus.LivingDocPlugin', 'wix', 'Xabe.FFmpeg',
];

const MACHINE_LIST = '/work/.library/env/packages/nuget.tsv';
/** Where the oracle's sources, build inputs and goldens live; its build output is not scanned. */
const SCANNED = [fromRoot('test', 'oracle'), fromRoot('fixtures', 'dotnet')];
const BUILD_OUTPUT = new Set(['bin', 'obj']);

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A package name as a whole token: not inside a longer dotted name or word. */
const naming = (name: string) => new RegExp(`(?<![\\w.-])${escape(name)}(?![\\w-]|\\.\\w)`, 'i');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return BUILD_OUTPUT.has(entry) && dir.endsWith('oracle') ? [] : files(path);
    return [path];
  });
}

/** Every file that names a not-to-use package, with the name: "path: name". */
function namingNotToUse(dirs: readonly string[], names: readonly string[] = NOT_TO_USE): string[] {
  const patterns = names.map((n) => [n, naming(n)] as const);
  return dirs.flatMap(files).flatMap((path) => {
    const text = readFileSync(path, 'utf8');
    return patterns.filter(([, re]) => re.test(text)).map(([n]) => `${relative(fromRoot(), path)}: ${n}`);
  });
}

describe('the .NET oracle uses only packages the NuGet list allows', () => {
  it('no file under test/oracle or fixtures/dotnet names a package the list marks not-to-use', () => {
    const scanned = SCANNED.flatMap(files);
    expect(scanned.length).toBeGreaterThan(300); // the sources, the lock file and every golden
    expect(namingNotToUse(SCANNED)).toEqual([]);
  });

  it('the scan finds a not-to-use package named in a project file or lock file, in any letter case', () => {
    const re = naming('ServiceStack.Text');
    expect(re.test('<PackageReference Include="ServiceStack.Text" Version="[10.5.0]" />')).toBe(true);
    expect(re.test('"servicestack.text": { "type": "Direct" }')).toBe(true);
    expect(re.test('using ServiceStack.Text;')).toBe(true);
    // A longer name that merely starts with it is another package.
    expect(re.test('"ServiceStack.Text.Extras"')).toBe(false);
  });

  it('the oracle references exactly the packages its lock file pins, none of them not-to-use', () => {
    const csproj = readFileSync(fromRoot('test', 'oracle', 'Oracle.csproj'), 'utf8');
    const direct = [...csproj.matchAll(/<PackageReference Include="([^"]+)"/g)].map((m) => m[1]!).sort();
    const lock = JSON.parse(readFileSync(fromRoot('test', 'oracle', 'packages.lock.json'), 'utf8')) as {
      dependencies: Record<string, Record<string, { type: string }>>;
    };
    const pinned = Object.values(lock.dependencies).flatMap((deps) => Object.entries(deps));
    expect(pinned.filter(([, d]) => d.type === 'Direct').map(([n]) => n).sort()).toEqual(direct);
    const banned = new Set(NOT_TO_USE.map((n) => n.toLowerCase()));
    expect(pinned.map(([n]) => n).filter((n) => banned.has(n.toLowerCase()))).toEqual([]);
  });

  if (existsSync(MACHINE_LIST)) {
    it(`the committed extract holds every package ${MACHINE_LIST} marks not-to-use (list present on this machine)`, () => {
      const marked = readFileSync(MACHINE_LIST, 'utf8').split('\n').slice(1)
        .map((line) => line.split('\t')).filter((cols) => cols[1] === 'not-to-use').map((cols) => cols[0]!);
      expect(marked.length).toBeGreaterThan(0);
      expect(marked.filter((n) => !NOT_TO_USE.includes(n))).toEqual([]);
    });
  } else {
    it('the committed extract of not-to-use packages is used as is (the machines\' list is absent here)', () => {
      expect(NOT_TO_USE).toContain('ServiceStack.Text');
    });
  }
});
