// `reference --tls-cert FILE --tls-key FILE` with a file that holds no usable PEM: one line naming the
// option and the file at fault (the certificate's, the key's, or the key that is not the
// certificate's), exit 2, before anything listens; never the file's text (a key is secret).
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { runProgram } from './helpers/cli.js';

const work = mkdtempSync(join(tmpdir(), 'reference-tls-files-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const CERT = 'fixtures/tls/server.pem';
const KEY = 'fixtures/tls/server.key';
/** A PEM whose base64 is broken: the armour of a certificate around text that is none. */
const broken = (label: string) => `-----BEGIN ${label}-----\nnot*base64*at*all\n-----END ${label}-----\n`;
const file = (name: string, text: string) => { const p = join(work, name); writeFileSync(p, text); return p; };
const serve = (cert: string, key: string) => runProgram('cli/reference', ['--port', '0', '--tls-cert', cert, '--tls-key', key]);

it('a certificate file of broken PEM is named as the --tls-cert at fault', async () => {
  const bad = file('bad-cert.pem', broken('CERTIFICATE'));
  const r = await serve(bad, KEY);
  expect([r.code, r.stdout]).toEqual([2, '']);
  expect(r.stderr).toMatch(new RegExp(`^reference: --tls-cert ${bad} holds no PEM certificate that can be read \\([^()\\n]+\\)\\n$`));
});

it('a key file of broken PEM is named as the --tls-key at fault, its text never shown', async () => {
  const bad = file('bad-key.pem', broken('PRIVATE KEY'));
  const r = await serve(CERT, bad);
  expect([r.code, r.stdout]).toEqual([2, '']);
  expect(r.stderr).toMatch(new RegExp(`^reference: --tls-key ${bad} holds no PEM private key that can be read \\([^()\\n]+\\)\\n$`));
  expect(r.stderr).not.toContain('not*base64');
});

it('a key that is not the certificate\'s is named with both files', async () => {
  const other = file('other.key', generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string);
  const r = await serve(CERT, other);
  expect([r.code, r.stdout]).toEqual([2, '']);
  expect(r.stderr).toMatch(new RegExp(`^reference: --tls-key ${other} is not the private key of the certificate in --tls-cert ${CERT} \\([^\\n]+\\)\\n$`));
  expect(r.stderr).not.toContain(readFileSync(other, 'utf8').split('\n')[1]);
});
