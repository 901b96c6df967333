// A target that puts attack strings in every field it controls (for output-safety tests): terminal
// escapes, bidi overrides, HTML and Markdown markup, CI workflow commands, shell quoting and XML
// CDATA ends, in its status text, header names and values, JSON member names and values, SOAP
// texts and redirect Locations. It answers as the reference would, then edits the answer.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { startReference } from '../../lib/reference/server.js';

/** What a header or status line can hold (visible ASCII: Node refuses controls there). */
export const PRINTABLE_ATTACK = `</script><img src=x onerror=alert(1)> [click](javascript:alert(1)) ![t](https://evil.example/t.png) a|b ##[add-mask]MUST ##vso[task.setvariable variable=x]y '$(touch /tmp/pwned)' \`touch /tmp/pwned\` ]]>`;
/** What a body can hold besides: terminal sequences, C1 controls, bidi, and lines that would be
 *  commands; the workflow commands early too, within the 200 printed characters a value quoted on
 *  the console keeps. */
export const ATTACK = `\u001b[2J\u001b]8;;http://evil.example/\u0007link\u001b]8;;\u0007\u001b]52;c;cHduZWQ=\u0007\u009b31m\u202e a|b ##[add-mask]MUST ##vso[task.setvariable variable=x]y ${PRINTABLE_ATTACK}\n::error::pwned\n::set-output name=x::y\n| c | d |\n`;
/** A header name of token characters only (RFC 9110 tchar holds ` | ' and #). */
export const ATTACK_HEADER = "x-'`id`|##a";

const xmlText = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export interface AttackTarget { readonly url: string; close(): Promise<void> }

export async function startAttackTarget(): Promise<AttackTarget> {
  const reference = await startReference();
  const sockets = new Set<Socket>();
  const answer = async (req: IncomingMessage, res: ServerResponse, body: Buffer) => {
    const { host: _h, connection: _c, 'content-length': _l, 'transfer-encoding': _t, ...headers } = req.headers as Record<string, string>;
    if (req.url?.includes('.xml')) {
      res.writeHead(302, PRINTABLE_ATTACK, { location: `javascript:alert(1)//${PRINTABLE_ATTACK}`, [ATTACK_HEADER]: PRINTABLE_ATTACK });
      res.end();
      return;
    }
    const r = await fetch(reference.url + req.url, { method: req.method, headers, body: ['GET', 'HEAD', 'OPTIONS'].includes(req.method!) ? undefined : body, redirect: 'manual' });
    const { 'content-encoding': _e, 'content-length': _n, ...answered } = Object.fromEntries(r.headers);
    let text = Buffer.from(await r.arrayBuffer()).toString('utf8');
    const type = answered['content-type'] ?? '';
    if (/json/.test(type) && text.startsWith('{')) {
      // A member named with the attack, and public members holding it (ownerId of the wrong type, so
      // a finding quotes it; personal members are left alone: the redactor masks their words).
      const a = JSON.stringify(ATTACK);
      text = `{${a}:1,${text.slice(1)}`.replace(/"ownerId":-?\d+/g, `"ownerId":${a}`).replace(/"company":"[^"]*"/g, `"company":${a}`);
    } else if (/xml/.test(type) && text.includes('<')) {
      text = text.replace(/(<[A-Za-z:]*Body[^>]*>)/, `$1<Attack>${xmlText(ATTACK)}<![CDATA[${ATTACK.replace(/]]>/g, ']]]]><![CDATA[>')}]]></Attack>`);
    }
    res.writeHead(r.status, PRINTABLE_ATTACK, { ...answered, [ATTACK_HEADER]: PRINTABLE_ATTACK, 'x-attack': PRINTABLE_ATTACK });
    res.end(text);
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => { answer(req, res, Buffer.concat(chunks)).catch(() => res.destroy()); });
  });
  server.on('connection', (s) => { sockets.add(s); s.on('close', () => sockets.delete(s)); });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await reference.close();
    },
  };
}
