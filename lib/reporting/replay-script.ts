// replay.sh, written beside the reports: re-sends the request of each failed check (its curl
// command, the bytes the harness sent) and prints the status and the body's SHA-256 beside the
// run's. A difference from the legacy (a differential run) is replayed on both sides: the request of
// each differing path's first example, to the legacy, then to the candidate, each beside what the
// run got from that side; and the legacy's own failed checks, each to the legacy. Each curl has the
// run's own bounds (replayBounds). A secret value is not in the file: it is a shell variable the
// script asks for at its top, one per distinct value of the run (ReportedExchange.secretSources).
// Such values are a secret header's (a --header's, a client's recorded one), and a request field the
// contract marks sensitive that the user supplied: an account's (--accounts) or a probe's
// (LOGIN_USER_NAME, …). Any other masked value would make the request differ from the one sent, so
// such a check is listed as not replayable rather than replayed wrong, in one line naming what was
// masked and where (never the value) and the way out (maskedWhy).
import { classify, isJsonOperation } from '../contract/classify.js';
import { envName, type JsonOperation } from '../contract/operations.js';
import type { Exchange } from '../http/exchange.js';
import { DEFAULT_MAX_BODY_BYTES, DEFAULT_TIMEOUT_MS, PHASES_PER_EXCHANGE } from '../http/send.js';
import { memberTexts } from '../json/member-texts.js';
import { BODY_LEFT_OUT, BODY_LONE_SURROGATE, BODY_NOT_RECORDED, BODY_NOT_UTF8, BODY_OTHER_LENGTH, BODY_REBUILT, BODY_TOO_LONG, curlStart, HEAD_OPTION, HEAD_TOO_LONG_FOR_CURL, HEAD_UNSENDABLE, HEADER_PAST_LATIN1, MAX_REPLAYED_BODY, shellQuote, TOO_LONG_FOR_CURL, URL_UNSENDABLE, type CurlBounds } from './exchange-text.js';
import { MARKER, markersIn } from './sensitive-ranges.js';
import type { Report, ReportedExchange, SecretSource } from './report.js';

export const REPLAY_FILE = 'replay.sh';

/** A secret header as a curl command writes it: its name any token (RFC 9110 5.6.2), a ' in it as
 *  shellQuote writes one; as an argument, or as a line of the file curl reads them from (a % in it
 *  as printf's format writes one: exchange-text.ts, fieldsWriter). */
const SECRET_HEADER = /-H '((?:[!#$%&*+.^_`|~0-9A-Za-z-]|'\\'')+): «secret header: [^»']*»'|printf '((?:[!#$&*+.^_`|~0-9A-Za-z-]|%%|'\\'')+): «secret header: [^»']*»\\n'/g;

/** A header field whose value is a shell variable's, its name as it was spelled, written by the
 *  script's `field` (an empty value as `Name;`: curl drops `Name: `, and the run sent the field). */
const variableField = (name: string, variable: string): string => `"$(field ${shellQuote(name)} "$${variable}")"`;

/** A line of a secret header whose value is a shell variable's, for curl's -H @file. */
const variableLine = (name: string, variable: string): string => `field_line ${shellQuote(name)} "$${variable}"`;

/** The shell variable that stands for a secret header's value: X-Api-Key -> HEADER_X_API_KEY. The
 *  prefix keeps it off every variable a shell or the script sets (Path as PATH, IFS, REPLAY_MAX_TIME)
 *  and off the variables of supplied fields (LOGIN_…, ACCOUNT_…). */
export const variableOf = (header: string): string => `HEADER_${header.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;

/** What the user sets a secret header's variable to, by where its value first came. */
const sourceWhat = (s: SecretSource | null, name: string): string => (s === null ? `the value of the --header ${name}`
  : s.field > 1 ? `the value of field ${s.field} named ${s.name} that ${s.exchange} was recorded with` : `the value of the ${s.name} header ${s.exchange} was recorded with`);

/** The line that stops replay.sh when `variable` is not set (set empty, it is sent empty, as a run
 *  given an empty value sent it), saying what to set it to: `?` where nothing of `what` is special
 *  in double quotes (bash reads a ' there too), else a printf of it. */
const asked = (variable: string, what: string): string => (/^[^'"`$\\}]*$/.test(what)
  ? `: "\${${variable}?set ${variable} to ${what}}"`
  : `[ -n "\${${variable}+set}" ] || { printf '%s\\n' ${shellQuote(`${variable}: set ${variable} to ${what}`)} >&2; exit 2; }`);

/** A masked string member of a JSON body, as curl's single-quoted argument holds it: its name, and the
 *  text between the name and the value's opening quote. */
const MASKED_MEMBER = /"([A-Za-z_][A-Za-z0-9_]*)"(\s*:\s*)"«(?:personal|credential): string, \d+ chars»"/g;

/** A marker as a URL or a form body spells it (encodeURIComponent: redact.ts), which holds no «. */
const URL_SPELLED = /%C2%AB(?:(?!%C2%AB).)*?%C2%BB/g;
const WHOLE_MARKER = new RegExp(`^${MARKER.source}$`);
const holdsUrlMarker = (curl: string): boolean => [...curl.matchAll(URL_SPELLED)].some((m) => {
  try { return WHOLE_MARKER.test(decodeURIComponent(m[0])); } catch { return false; }
});

/** What each kind of marker stands for, in a not-replayed line's words. */
const MASKED_KINDS: Readonly<Record<string, string>> = {
  personal: 'personal data', credential: 'a credential', 'secret header': 'a secret header\'s value outside its field',
  secret: 'a value the run learned is secret', withheld: 'text the reports withhold',
};
/** The name a masked value stands under just before it: a JSON member's, a query or form parameter's,
 *  a header's (an argument, or a line of the file curl reads them from). */
const NAME_BEFORE = /(?:"([A-Za-z_][A-Za-z0-9_]*)"\s*:\s*"?|[?&']([A-Za-z_][A-Za-z0-9_.-]*)=|-H '([A-Za-z0-9-]+): [^']*|printf '([A-Za-z0-9-]+): [^']*)$/;

/** The masked values left in a curl command, in words: each kind, with the name it stands under
 *  where the command shows one (userName), distinct, in order; no value, nor any of the marker's text. */
function maskedValues(curl: string): string[] {
  const found = [
    ...markersIn(curl).map(([from, to]) => ({ at: from, marker: curl.slice(from, to) })),
    ...[...curl.matchAll(URL_SPELLED)].flatMap((m) => { try { return [{ at: m.index, marker: decodeURIComponent(m[0]) }]; } catch { return []; } }),
  ].filter((m) => WHOLE_MARKER.test(m.marker)).sort((a, b) => a.at - b.at);
  const words = found.map(({ at, marker }) => {
    const kind = MASKED_KINDS[/^«([a-z ]+):/.exec(marker)![1]!]!;
    const n = NAME_BEFORE.exec(curl.slice(Math.max(0, at - 200), at));
    const name = n?.[1] ?? n?.[2] ?? n?.[3] ?? n?.[4];
    return name ? `${kind} (${name})` : kind;
  });
  return [...new Set(words)];
}

/** Why a request holding masked values is not replayed, and the way out, in one line: personal data a
 *  recording or the proxy's clients sent is kept by a run with --show-personal-data (its replay.sh
 *  then sends it); anything else is sent by hand. `variables`: the HEADER_ variables of its secret fields. */
function maskedWhy(curl: string, ex: ReportedExchange | undefined, variables: readonly string[]): string {
  const masked = maskedValues(curl);
  if (!masked.length) return 'its curl command does not start as replay.sh expects';
  const shown = masked.length > 3 ? `${masked.slice(0, 3).join(', ')} and ${masked.length - 3} more` : masked.join(', ');
  const personal = masked.every((m) => m.startsWith(MASKED_KINDS['personal']!)) && (ex?.source === 'har' || ex?.source === 'proxy');
  const fields = masked.some((m) => m.startsWith(MASKED_KINDS['secret header']!)) && variables.length ? ` (replay.sh asks for whole secret fields only: ${[...new Set(variables)].join(', ')})` : '';
  return `its request holds ${shown}, masked in the reports${fields}: ${personal
    ? 'a run with --show-personal-data keeps personal data in its reports, and its replay.sh sends it'
    : 'send its curl command from summary.json by hand, each value in place of its marker'}`;
}

/** The JSON operation a request URL names (by any of its routes: a probe's /json/reply/… too), or undefined. */
function operationOf(url: string): JsonOperation | undefined {
  const op = classify({ method: 'POST', url, headers: {} }).operation;
  return isJsonOperation(op) ? op : undefined;
}

/** A string as json_text (below) writes it in a JSON string: as JSON.stringify does (the run sent a
 *  supplied value so). */
const jsonText = (value: string): string => JSON.stringify(value);

/** The sensitive members of an account's JSON request whose text is not the one json_text writes
 *  from their value (an escape such as \u00e9 or \/, which the run sent as the file wrote it):
 *  replay.sh asks for such a member's text as the file wrote it and sends it untouched. */
export function respelledMembers(ex: Exchange): readonly string[] | undefined {
  const body = ex.request.body;
  if (ex.origin.source !== 'case' || body === undefined || !body.includes('\\')) return undefined;
  const op = operationOf(ex.request.url);
  if (!op) return undefined;
  try {
    const texts = memberTexts(body);
    const names = op.request.fields.filter((f) => {
      const text = f.sensitivity ? texts.get(f.json) : undefined;
      return text?.startsWith('"') && text !== jsonText(JSON.parse(text) as string);
    }).map((f) => f.json);
    return names.length ? names : undefined;
  } catch {
    return undefined; // not JSON: no member to write
  }
}

/** The request field a masked member of this exchange's body is, and the variable that stands for the
 *  value the user supplied for it, with what to set it to; undefined when the user did not supply it. */
function suppliedField(ex: ReportedExchange, member: string): { variable: string; what: string } | undefined {
  const op = operationOf(ex.url);
  const f = op?.request.fields.find((x) => x.json === member && x.sensitivity);
  if (!op || !f) return undefined;
  if (ex.source === 'case' && ex.case !== undefined) {
    return { variable: `ACCOUNT_${ex.case}_${envName(op.envPrefix, f)}`, what: `${op.name}.${f.json} of the account on line ${ex.case} of the --accounts file` };
  }
  if (ex.source === 'probe') return { variable: envName(op.envPrefix, f), what: `the ${op.name}.${f.json} the run was given in ${envName(op.envPrefix, f)}` };
  return undefined;
}

/** `map` made to hold what `was` holds, and nothing else. */
function restore<K, V>(map: Map<K, V>, was: ReadonlyMap<K, V>): void {
  map.clear();
  for (const [key, value] of was) map.set(key, value);
}

/** What a request the target did not answer got, in the run and in the replay (curl says why on stderr). */
const NO_ANSWER = 'no answer';
/** What stands for the run's answer where the recording holds none: not "no answer" (which the
 *  run did not see either), and nothing a replay's answer is the same as or differs from. */
const NOT_RECORDED = 'not recorded';
/** What stands for the run's answer body where it went past the body cap (answerPastCap): the run
 *  read its status, not its body, so a replay's status alone is compared. */
const PAST_CAP = 'past the cap';
/** What stands for the run's answer body where its head came and its body did not come whole
 *  (answerCutShort): its status alone is compared, the run's error saying why. */
const NOT_WHOLE = 'not whole';

/** The bounds of each curl of a report (summary.json's and replay.sh's), in seconds, from the run's
 *  --timeout (the configuration's timeoutMs): connecting within it, the whole exchange within
 *  PHASES_PER_EXCHANGE times it (connect, headers, body: the most the harness waited for one answer),
 *  so a peer that hangs fails the replay as "no answer" instead of holding it forever. */
export function replayBounds(report: Pick<Report, 'configuration'>): CurlBounds {
  const given = report.configuration['timeoutMs'];
  const ms = typeof given === 'number' && Number.isFinite(given) && given > 0 ? given : DEFAULT_TIMEOUT_MS;
  return { connect: String(ms / 1000), max: String((PHASES_PER_EXCHANGE * ms) / 1000) };
}

/** The most bytes of an answer body replay.sh reads: the run's cap (--max-body-mib). */
export function replayBodyCap(report: Pick<Report, 'configuration'>): number {
  const given = report.configuration['maxBodyBytes'];
  return typeof given === 'number' && Number.isSafeInteger(given) && given > 0 ? given : DEFAULT_MAX_BODY_BYTES;
}

/** How a command of summary.json written before its curls had bounds starts (`npm run report`
 *  rebuilds such a directory). */
const UNBOUNDED_START = 'curl -sS -i';

export function replayScript(report: Report): string {
  const bounds = replayBounds(report);
  // Each command's start, swapped for replay.sh's: its bounds the script's variables, its head to a
  // file, its body to stdout, which answered() cuts past the cap (curl's --max-filesize stops a body
  // whose length the head says, not a chunked one, in curl 7.88).
  const reported = curlStart(bounds, '-i');
  const own = curlStart({ connect: '"$connect_timeout"', max: '"$max_time"' }, '--max-filesize "$max_body" -D "$work/head" -o -');
  const byId = new Map(report.exchanges.map((e) => [e.id, e]));
  /** Shell variable -> what the user sets it to. */
  const variables = new Map<string, string>();
  /** A secret header value (where it first came, or, in a report without that, what to set it to) -> its variable. */
  const variableFor = new Map<string, string>();
  const steps: string[] = [];
  /** The lines that replay one request: `replay` its curl command (secrets as markers), `ex` the
   *  exchange whose answer the replay's is shown beside. */
  const replay = (label: string, command: string, ex: ReportedExchange | undefined): void => {
    // A secret header a request repeated (a client's, a recording's): each field its own variable.
    // A field's place counts by its name in any case.
    const seen = new Map<string, number>();
    const count = (key: string) => { const n = (seen.get(key) ?? 0) + 1; seen.set(key, n); return n; };
    // Each secret field's source, in order (a report written before them has none: each field is then
    // told apart by what it is).
    const sources = ex?.secretSources?.length === [...command.matchAll(SECRET_HEADER)].length ? ex.secretSources : undefined;
    // A request not replayed asks for nothing: the variables as they were before it, to restore.
    const [variablesBefore, variableForBefore] = [new Map(variables), new Map(variableFor)];
    let k = 0;
    const fieldVariables: string[] = []; // the variables of its secret fields
    const curl = command.replace(SECRET_HEADER, (_m, quoted: string | undefined, inFile: string | undefined) => {
      const name = quoted?.replaceAll(`'\\''`, "'") ?? inFile!.replaceAll(`'\\''`, "'").replaceAll('%%', '%');
      const field = count(name.toLowerCase());
      const source = sources?.[k++];
      // A probe run's secret headers are its --header values; traffic's are the clients' own.
      const what = source !== undefined ? sourceWhat(source, name)
        : field > 1 ? `the value of field ${field} named ${name} of the request replayed` : report.mode === 'traffic' ? `the value of the ${name} header the request was recorded with` : `the value of the --header ${name}`;
      const key = source === undefined ? what : source === null ? `--header ${name.toLowerCase()}` : JSON.stringify(source);
      // One variable stands for one value: the first of HEADER_X_KEY, HEADER_X_KEY_2, … not taken. A
      // numbered name can be another field's own (X-Key-2 beside X-Key's second value, X.Key beside X-Key).
      let variable = variableFor.get(key);
      if (variable === undefined) {
        variable = variableOf(name);
        for (let n = 2; variables.has(variable); n++) variable = `${variableOf(name)}_${n}`;
        variableFor.set(key, variable);
        variables.set(variable, what);
      }
      fieldVariables.push(variable);
      return quoted === undefined ? variableLine(name, variable) : `-H ${variableField(name, variable)}`;
    }).replace(MASKED_MEMBER, (m, member: string, colon: string) => {
      const field = ex && suppliedField(ex, member);
      if (!field) return m;
      // Out of the single quotes, the value as a JSON string holds it, and back in. A value the file
      // wrote with escapes is asked for as written there and sent as it is: the same bytes as the run.
      if (ex.respelled?.includes(member)) {
        variables.set(field.variable, `${field.what}, as the file writes it between its quotes (its JSON escapes kept)`);
        return `"${member}"${colon}"'"$${field.variable}"'"`;
      }
      variables.set(field.variable, field.what);
      return `"${member}"${colon}"'"$(json_text "$${field.variable}")"'"`;
    });
    // A body rebuilt from a recording's form parameters is sent, and said to be rebuilt.
    const quoted = shellQuote(curl.startsWith(BODY_REBUILT) ? `${label} (its body rebuilt from the form parameters recorded: maybe not the bytes sent)` : label);
    const notReplayed = (why: string): void => {
      restore(variables, variablesBefore);
      restore(variableFor, variableForBefore);
      steps.push(`echo ${quoted}${shellQuote(`: not replayed: ${why}`)}`);
    };
    const missing = curl === HEAD_UNSENDABLE ? 'its method or a header field is none a request carries (a method or field name that is no token, or a field value holding CR, LF or NUL: RFC 9110 5.5, 5.6.2), which curl would send as further lines of the head: the recording does not say what was sent'
      : curl.startsWith(HEADER_PAST_LATIN1) ? 'a header of its request holds a character past U+00FF, which names no byte (a header value is the bytes sent read as Latin-1): what was sent is not known'
      : curl.startsWith(URL_UNSENDABLE) ? 'its URL holds a space or a control character, which no request line carries (RFC 9112 3.2) and curl refuses: the recording does not say how it was sent'
      : curl.startsWith(HEAD_TOO_LONG_FOR_CURL) ? 'its request head is more than 1 MiB, which curl does not send (it says "Out of memory")'
      : curl.startsWith(TOO_LONG_FOR_CURL) ? 'its method, URL or request target is too long for the command line of curl (Linux takes 128 KiB in one argument), and is no query curl reads from a file (-G, for a request without a body)'
      : curl.includes(BODY_LEFT_OUT) ? 'its request body went past the body cap and was left out of the run'
      : curl.includes(BODY_TOO_LONG) ? `its request body is longer than the ${MAX_REPLAYED_BODY / 1024} KiB a replay carries (redacting a longer one for its command costs the run hundreds of megabytes)`
      : curl.includes(BODY_NOT_RECORDED) ? 'its request body was not recorded (its Content-Length or Transfer-Encoding says one was sent)'
        : curl.includes(BODY_NOT_UTF8) ? 'its request body was bytes that are not UTF-8, which the run did not keep as sent'
          : curl.includes(BODY_OTHER_LENGTH) ? 'its request body was recorded with another length than its Content-Length says was sent: not the bytes sent'
            : curl.includes(BODY_LONE_SURROGATE) ? 'its request body was recorded holding a lone surrogate, which names no bytes: what was sent is not known' : undefined;
    if (missing) {
      notReplayed(missing);
      return;
    }
    const start = curl.includes(reported) ? reported : UNBOUNDED_START;
    // A marker exactly as the redactor writes one: a « a client sent in a value is sent again.
    if (markersIn(curl).length || holdsUrlMarker(curl) || !curl.includes(start)) {
      notReplayed(maskedWhy(curl, ex, fieldVariables));
      return;
    }
    // The curl's own exit status kept (the last of the pipeline its command may be); its messages
    // shown only where it got no answer.
    steps.push(`{ ${curl.replace(start, own)} 2>"$work/err"; echo $? >"$work/rc"; } | head -c "$((max_body + 1))" >"$body"; answered`,
      // A HEAD's answer has no body: what curl --head wrote there is its headers.
      ...(curl.includes(`${start}${HEAD_OPTION}`) ? [': > "$body"'] : []),
      // An exchange the target never answered (a dropped connection) is replayed as the same failure
      // when the replay gets no answer either: both are "no answer", with no body to hash.
      `shown ${quoted} ${shellQuote(ex?.answerNotRecorded ? NOT_RECORDED : ex && ex.status === undefined && !ex.answerPastCap ? NO_ANSWER : String(ex?.status ?? '-'))} ${ex?.answerCutShort ? `${shellQuote(NOT_WHOLE)} ${shellQuote(ex.error ?? 'unknown')}` : shellQuote(ex?.answerPastCap ? PAST_CAP : ex?.responseSha256 ?? '-')}`);
  };
  for (const c of report.checks.filter((x) => x.status === 'fail')) {
    // A shrunk failure replays its smallest failing request (a curl writes a control character of a
    // body by its bytes, exchange-text.ts, so the first one is sent as it was too).
    const ex = byId.get(c.shrunk?.exchange ?? c.evidence[0]?.exchange ?? '');
    const label = `${c.id} (${c.level}) ${ex?.id ?? ''}`;
    const command = c.shrunk?.curl ?? c.replay;
    if (command) replay(label, command, ex);
    else steps.push(`echo ${shellQuote(label)}': not replayed: the run kept no request of it'`);
  }
  // The legacy's own failed checks (shown beside the candidate's), each to the legacy.
  for (const f of report.differential?.legacy.failed ?? []) {
    const ex = byId.get(f.exchange ?? '');
    const label = `the legacy's ${f.id} (${f.level}) ${ex?.id ?? ''}`;
    if (ex) replay(label, ex.curl, ex);
    else steps.push(`echo ${shellQuote(label)}': not replayed: the run kept no request of it'`);
  }
  // A difference from the legacy, on both sides; paths whose first example is one request, once.
  const differing = new Map<string, { operation: string; paths: string[]; legacy?: ReportedExchange; candidate?: ReportedExchange }>();
  for (const p of report.differential?.paths ?? []) {
    const key = p.shownBy ? `${p.shownBy.legacy} ${p.shownBy.candidate}` : `${p.operation} ${p.path}`;
    const at = differing.get(key) ?? differing.set(key, { operation: p.operation, paths: [], ...(p.shownBy ? { legacy: byId.get(p.shownBy.legacy), candidate: byId.get(p.shownBy.candidate) } : {}) }).get(key)!;
    at.paths.push(p.path);
  }
  for (const d of differing.values()) {
    const label = `differs from the legacy: ${d.operation} ${d.paths.join(', ')} ${d.candidate?.id ?? ''}`;
    if (!d.legacy || !d.candidate) { steps.push(`echo ${shellQuote(label)}': not replayed: the run kept no request of it'`); continue; }
    replay(`${label}, to the legacy`, d.legacy.curl, d.legacy);
    replay(`${label}, to the candidate`, d.candidate.curl, d.candidate);
  }
  return [
    '#!/bin/sh',
    `# Re-sends the request of each failed check of the run against ${report.target.baseUrl.replace(/[\r\n]/g, ' ')}`,
    '# as the harness sent it, and prints the status and the SHA-256 of the body answered beside the run\'s.',
    '# Secrets (--header values, secret headers a client sent, sensitive fields of --accounts) are not written here: set them first.',
    ...(report.differential ? ['# A difference from the legacy is replayed on both: the request of its first example to the legacy, then to the candidate.'] : []),
    `# Each request must connect within the run's --timeout and end within ${PHASES_PER_EXCHANGE} times it (REPLAY_CONNECT_TIMEOUT, REPLAY_MAX_TIME: seconds);`,
    '# an answer body is read up to the run\'s body cap (REPLAY_MAX_BODY_BYTES), the rest not.',
    'set -u',
    ...[...variables].map(([v, what]) => asked(v, what)),
    `connect_timeout=\${REPLAY_CONNECT_TIMEOUT:-${bounds.connect}}`,
    `max_time=\${REPLAY_MAX_TIME:-${bounds.max}}`,
    `max_body=\${REPLAY_MAX_BODY_BYTES:-${replayBodyCap(report)}}`,
    'work=$(mktemp -d) || exit 2',
    'trap \'rm -rf "$work"\' EXIT',
    'body="$work/body"; : >"$work/head"',
    // A supplied value as the body's JSON string holds it, escaped as JSON.stringify escapes it (the
    // run sent it so): " \ and each control character (a tab as \t, U+0001 as \u0001). awk reads it
    // by lines, so a newline ends a record; the dot after it keeps a last one, and is dropped.
    ...String.raw`json_text() {
  printf '%s.' "$1" | awk 'BEGIN { for (i = 1; i < 32; i++) e[sprintf("%c", i)] = sprintf("\\u%04x", i); e["\b"] = "\\b"; e["\f"] = "\\f"; e["\n"] = "\\n"; e["\r"] = "\\r"; e["\t"] = "\\t"; e["\""] = "\\\""; e["\\"] = "\\\\" }
    { if (NR > 1) out = out "\\n"; n = length($0); for (i = 1; i <= n; i++) { c = substr($0, i, 1); out = out ((c in e) ? e[c] : c) } }
    END { printf "%s", substr(out, 1, length(out) - 1) }'
}`.split('\n'),
    // A header field of a secret value: 'Name: value', or 'Name;' for an empty one (curl drops 'Name: ').
    // Its text goes as Latin-1 bytes, as the run sent it (a header string's characters are its bytes):
    // a value given as UTF-8 (café) had gone as other bytes than the run's (63 61 66 c3 a9, not
    // 63 61 66 e9). Text that is not UTF-8, or past U+00FF, or no iconv: as given.
    'latin1() { v=$(printf \'%s\' "$1" | iconv -f UTF-8 -t ISO-8859-1 2>/dev/null) && printf \'%s\' "$v" || printf \'%s\' "$1"; }',
    'field() { if [ -n "$2" ]; then printf \'%s: \' "$1"; latin1 "$2"; else printf \'%s;\' "$1"; fi; }',
    'field_line() { field "$1" "$2"; printf \'\\n\'; }',
    'sha() { if command -v sha256sum >/dev/null; then sha256sum | cut -d" " -f1; else shasum -a 256 | cut -d" " -f1; fi; }',
    // curl ends 63 where the Content-Length is past the cap, and fails to write (23) once head -c has
    // all it reads: one byte past the cap says the body went past it.
    '# answered: the status the replay got ($status, from its head), and whether its body went past the cap ($past).',
    'answered() {',
    '  rc=$(cat "$work/rc"); past=',
    '  status=$(sed -n \'s|^HTTP/[^ ]* \\([0-9][0-9][0-9]\\).*|\\1|p\' "$work/head" | tail -n 1); status=${status:-000}',
    '  if [ "$rc" = 63 ]; then past=unread; elif [ "$(wc -c <"$body")" -gt "$max_body" ]; then past=cut',
    `  elif [ "$rc" != 0 ]; then status=${shellQuote(NO_ANSWER)}; cat "$work/err" >&2; fi`,
    '  : >"$work/head"',
    '}',
    `# shown LABEL STATUS SHA256 [WHY]: what the replay just got ($status, $body) beside what the run got (${NOT_RECORDED}: none to compare; a body ${PAST_CAP}, or ${NOT_WHOLE} for WHY: its status alone).`,
    'shown() {',
    `  if [ "$status" = ${shellQuote(NO_ANSWER)} ] || [ "$past" = unread ]; then got=-; elif [ -n "$past" ]; then got=$(head -c "$max_body" "$body" | sha); else got=$(sha <"$body"); fi`,
    '  cap=; too=',
    '  if [ "$past" = unread ]; then cap="its body past the body cap of $max_body bytes, as its Content-Length says: not read; " too=" too"',
    '  elif [ -n "$past" ]; then cap="its body past the body cap of $max_body bytes: the SHA-256 of its first $max_body; " too=" too"; fi',
    `  if [ "$2" = ${shellQuote(NOT_RECORDED)} ]; then same="the run's answer was not recorded: nothing to compare with"`,
    `  elif [ "$3" = ${shellQuote(PAST_CAP)} ]; then if [ "$status" = "$2" ]; then same="status as in the run, whose answer body was past the body cap$too: no body to compare with"; else same="the run got $2, its answer body past the body cap$too"; fi`,
    `  elif [ "$3" = ${shellQuote(NOT_WHOLE)} ]; then if [ "$status" = "$2" ]; then same="status as in the run, whose answer body did not come whole: $4; no body to compare with"; else same="the run got $2, its answer body did not come whole: $4"; fi`,
    '  elif [ -z "$past" ] && [ "$status" = "$2" ] && [ "$got" = "$3" ]; then same="as in the run"; else same="the run got $2 $3"; fi',
    '  printf \'%s: %s sha256 %s (%s%s)\\n\' "$1" "$status" "$got" "$cap" "$same"',
    '}',
    ...(steps.length ? steps : ['echo "no failed check to replay"']),
    '',
  ].join('\n');
}
