// Error bodies shaped as ServiceStack writes them, so clients (its own TypeScript client
// included) read `responseStatus` the way they would from the real platform.
export interface ErrorResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export const JSON_UTF8 = 'application/json; charset=utf-8';

export function serviceStackError(status: number, errorCode: string, message: string, headers: Record<string, string> = {}): ErrorResponse {
  return {
    status,
    headers: { 'content-type': JSON_UTF8, ...headers },
    body: JSON.stringify({ responseStatus: { errorCode, message, errors: [] } }),
  };
}

/** ServiceStack answers an unknown route with a plain-text 404. */
export const notFound = (method: string, path: string): ErrorResponse => ({
  status: 404,
  headers: { 'content-type': 'text/plain; charset=utf-8' },
  // The path is the caller's input: bounded and printable only, so the echo stays one clean line.
  body: `Handler for Request not found: ${method} ${path.slice(0, 200).replace(/[^\x20-\x7e]/g, '?')}`,
});
