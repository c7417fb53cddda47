import { inspect } from 'node:util';

const REDACTED = '[REDACTED]';
const store = new WeakMap<Secret, string>();

/**
 * A secret value (API key, private key, JWT, PAT, cookie). It prints `[REDACTED]` everywhere:
 * String(), template literals, JSON.stringify, util.inspect, console.log, pino.
 * The only way to read it is `reveal()`, which call sites use at the last moment (a header, a signer).
 */
export class Secret {
  readonly label: string;

  constructor(value: string, label = 'secret') {
    if (typeof value !== 'string') throw new TypeError('Secret value must be a string');
    store.set(this, value);
    this.label = label;
    Object.freeze(this);
  }

  reveal(): string {
    return store.get(this) as string;
  }

  /** True when `candidate` equals the secret, in constant time relative to the candidate length. */
  equals(candidate: string): boolean {
    const v = this.reveal();
    if (v.length !== candidate.length) return false;
    let diff = 0;
    for (let i = 0; i < v.length; i++) diff |= v.charCodeAt(i) ^ candidate.charCodeAt(i);
    return diff === 0;
  }

  toString(): string {
    return REDACTED;
  }

  toJSON(): string {
    return REDACTED;
  }

  [Symbol.toPrimitive](): string {
    return REDACTED;
  }

  [inspect.custom](): string {
    return REDACTED;
  }
}

export const REDACTED_TEXT = REDACTED;

export function isSecret(v: unknown): v is Secret {
  return v instanceof Secret;
}
