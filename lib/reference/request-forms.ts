// The forms of request a client repeats: method, path and query, and the headers the classifier
// reads. Without an observer the reference's answer to a request depends on nothing else but its
// body, so each form is classified once and keeps the last body it answered with the sample
// account's record: the same bytes again get the same answer, unbound. Bounded in count and bytes.
import type { IncomingHttpHeaders } from 'node:http';
import { classify, type RequestKind } from '../contract/classify.js';

export interface RequestForm<A> {
  readonly method: string;
  readonly url: string;
  readonly accept: string | undefined;
  readonly contentType: string | undefined;
  readonly soapAction: string | string[] | undefined;
  readonly kind: RequestKind;
  /** The last body kept on this form (a copy) and its answer. */
  known?: { readonly body: Buffer; readonly answer: A };
}

/** Forms kept (beyond it all are forgotten at once, as the classifier's own memo does), and the
 *  largest body kept: a sample request is a few dozen bytes, a SOAP one a few hundred. So at most
 *  256 × 2 KiB of request bodies. */
export const FORMS_KEPT = 256;
export const KNOWN_BODY_BYTES = 2048;

export class RequestForms<A> {
  private readonly byUrl = new Map<string, RequestForm<A>[]>();
  private count = 0;

  get size(): number { return this.count; }

  /** The form of a request as node:http read it (every header name lower case). */
  formOf(method: string, url: string, headers: IncomingHttpHeaders): RequestForm<A> {
    const accept = headers.accept;
    const contentType = headers['content-type'];
    const soapAction = headers.soapaction;
    let forms = this.byUrl.get(url);
    if (forms) {
      for (const f of forms) if (f.method === method && f.accept === accept && f.contentType === contentType && f.soapAction === soapAction) return f;
    }
    const form: RequestForm<A> = { method, url, accept, contentType, soapAction, kind: classify({ method, url, headers }) };
    if (this.count >= FORMS_KEPT) { this.byUrl.clear(); this.count = 0; forms = undefined; }
    if (forms) forms.push(form); else this.byUrl.set(url, [form]);
    this.count++;
    return form;
  }
}

/** The answer kept on `form` for exactly these bytes. */
export const knownAnswer = <A>(form: RequestForm<A>, body: Buffer): A | undefined =>
  form.known && body.equals(form.known.body) ? form.known.answer : undefined;

/** Keeps `answer` for a copy of `body` (the parser's buffer is not ours), if the body is small. */
export function keepAnswer<A>(form: RequestForm<A>, body: Buffer, answer: A): void {
  if (body.length <= KNOWN_BODY_BYTES) form.known = { body: Buffer.from(body), answer };
}
