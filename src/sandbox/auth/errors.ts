import { HttpError } from '../errors.ts';

const STATUS_NAMES: Readonly<Record<number, string>> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  422: 'UNPROCESSABLE_ENTITY',
};

/**
 * An error of the auth endpoints (`/api/v2/auth/siwe/*`, `session/*`, `tokens*`): their body is
 * the document's `AuthErrorResponse`, `{"error": {"message", "status", "code"}}`, not the
 * `{"errors": [...]}` of the other endpoints.
 */
export class AuthHttpError extends HttpError {
  override toBody(): Record<string, unknown> {
    return {
      error: {
        message: this.reasons.join('; '),
        status: STATUS_NAMES[this.status] ?? 'ERROR',
        code: this.status,
      },
    };
  }
}

/** The one answer of every failed exchange (unknown, revoked, rotated, expired PAT): by design opaque. */
export const EXCHANGE_UNAVAILABLE = 'Token exchange is not available';
