// Why a long-running mode could not listen, in one line naming the address and port (no usage line
// follows: the options were right, the address was not free).
const REASONS: Readonly<Record<string, string>> = {
  EADDRINUSE: 'the address is in use by another process',
  EACCES: 'permission denied (ports below 1024 need privileges)',
  EADDRNOTAVAIL: 'the address is not one of this machine\'s',
  ENOTFOUND: 'the host name does not resolve',
};

export function listenProblem(e: NodeJS.ErrnoException, host: string, port: number): string {
  const where = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  const code = e.code ?? '';
  return `cannot listen on ${where}: ${REASONS[code] ?? e.message.split('\n')[0]}${code ? ` (${code})` : ''}`;
}
