/**
 * An error the sandbox answers over HTTP, with the spec's body shape `{"errors": [...]}`.
 * Thrown by the market and route code; the server turns it into a response.
 */
export class HttpError extends Error {
  readonly status: number;
  readonly reasons: readonly string[];
  /** Extra JSON merged into the body (e.g. the fulfillment 400 keeps the fulfillment shape). */
  readonly body: Readonly<Record<string, unknown>> | undefined;

  constructor(status: number, reasons: string | readonly string[], body?: Record<string, unknown>) {
    const list = typeof reasons === 'string' ? [reasons] : [...reasons];
    super(`${status}: ${list.join('; ')}`);
    this.name = 'HttpError';
    this.status = status;
    this.reasons = Object.freeze(list);
    this.body = body ? Object.freeze({ ...body }) : undefined;
  }

  toBody(): Record<string, unknown> {
    return { ...(this.body ?? {}), errors: [...this.reasons] };
  }
}

export const badRequest = (reasons: string | readonly string[]) => new HttpError(400, reasons);
export const notFound = (reasons: string | readonly string[]) => new HttpError(404, reasons);
