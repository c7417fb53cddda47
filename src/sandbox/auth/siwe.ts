import { getAddress, isAddress, verifyMessage } from 'ethers';

/**
 * Sign-In with Ethereum (EIP-4361) as the marketplace speaks it: the client signs the message text
 * and sends `siwe/verify` the *parsed* message (camelCase fields), the signature and `chainArch`.
 * The server rebuilds the text from the fields and recovers the signer from it.
 *
 * The header line names the account type (`opensea.io wants you to sign in with your Ethereum
 * account:`); a message without `accountType` is refused with the invalid-signature answer even
 * when the signature is right (spec, Authentication rule 7).
 */

export type SiweAccountType = 'Ethereum' | 'Solana';
export const SIWE_ACCOUNT_TYPES: readonly SiweAccountType[] = Object.freeze(['Ethereum', 'Solana']);

export interface SiweFields {
  readonly domain: string;
  readonly address: string;
  readonly statement?: string;
  readonly uri: string;
  readonly version: string;
  /** As sent: a decimal string (parsed text) or a number. */
  readonly chainId: string | number;
  readonly nonce: string;
  readonly issuedAt: string;
  readonly expirationTime?: string;
  readonly notBefore?: string;
  readonly requestId?: string;
  readonly resources?: readonly string[];
  readonly accountType?: SiweAccountType;
}

/** A message the server will not accept; `message` is what the 400 answer says. */
export class SiweRejected extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SiweRejected';
  }
}

/** The one text of every signature problem (wrong signer, malformed signature, no account type). */
export const INVALID_SIGNATURE = 'Invalid signature';

const HEADER = /^(?<domain>[^ ]+) wants you to sign in with your (?:(?<type>[A-Za-z]+) )?account:$/;
const PREFIXES = [
  ['uri', 'URI: '],
  ['version', 'Version: '],
  ['chainId', 'Chain ID: '],
  ['nonce', 'Nonce: '],
  ['issuedAt', 'Issued At: '],
  ['expirationTime', 'Expiration Time: '],
  ['notBefore', 'Not Before: '],
  ['requestId', 'Request ID: '],
] as const;
type TaggedField = (typeof PREFIXES)[number][0];

/** Parses the EIP-4361 text (as signed) into its fields. */
export function parseSiweMessage(text: string): SiweFields {
  const lines = text.split('\n');
  const head = HEADER.exec(lines[0] ?? '');
  const address = lines[1] ?? '';
  if (!head?.groups || address === '') throw new SiweRejected('Invalid SIWE message: no header and address');
  const type = head.groups['type'];
  if (type !== undefined && !(SIWE_ACCOUNT_TYPES as readonly string[]).includes(type)) {
    throw new SiweRejected(`Invalid SIWE message: unknown account type '${type}'`);
  }
  const tagged: Partial<Record<TaggedField, string>> = {};
  const resources: string[] = [];
  let firstTagged = lines.length;
  for (let i = 2; i < lines.length; i++) {
    const line = lines[i] as string;
    if (line === 'Resources:') {
      firstTagged = Math.min(firstTagged, i);
      for (const r of lines.slice(i + 1)) if (r.startsWith('- ')) resources.push(r.slice(2));
      break;
    }
    for (const [key, prefix] of PREFIXES) {
      if (tagged[key] === undefined && line.startsWith(prefix)) {
        tagged[key] = line.slice(prefix.length);
        firstTagged = Math.min(firstTagged, i);
      }
    }
  }
  const statement = lines
    .slice(2, firstTagged)
    .join('\n')
    .replace(/^\n+|\n+$/g, '');
  for (const key of ['uri', 'version', 'chainId', 'nonce', 'issuedAt'] as const) {
    if (tagged[key] === undefined) throw new SiweRejected(`Invalid SIWE message: no ${key}`);
  }
  return {
    domain: head.groups['domain'] as string,
    address,
    ...(statement !== '' ? { statement } : {}),
    uri: tagged.uri as string,
    version: tagged.version as string,
    chainId: tagged.chainId as string,
    nonce: tagged.nonce as string,
    issuedAt: tagged.issuedAt as string,
    ...(tagged.expirationTime !== undefined ? { expirationTime: tagged.expirationTime } : {}),
    ...(tagged.notBefore !== undefined ? { notBefore: tagged.notBefore } : {}),
    ...(tagged.requestId !== undefined ? { requestId: tagged.requestId } : {}),
    ...(resources.length > 0 ? { resources } : {}),
    ...(type !== undefined ? { accountType: type as SiweAccountType } : {}),
  };
}

/** The text a client signed for these fields (the inverse of `parseSiweMessage`). */
export function siweMessageText(f: SiweFields): string {
  const type = f.accountType !== undefined ? `${f.accountType} ` : '';
  const statement = f.statement !== undefined && f.statement !== '' ? `${f.statement}\n` : '';
  const lines = [
    `URI: ${f.uri}`,
    `Version: ${f.version}`,
    `Chain ID: ${f.chainId}`,
    `Nonce: ${f.nonce}`,
    `Issued At: ${f.issuedAt}`,
  ];
  if (f.expirationTime !== undefined) lines.push(`Expiration Time: ${f.expirationTime}`);
  if (f.notBefore !== undefined) lines.push(`Not Before: ${f.notBefore}`);
  if (f.requestId !== undefined) lines.push(`Request ID: ${f.requestId}`);
  if (f.resources !== undefined && f.resources.length > 0) {
    lines.push('Resources:', ...f.resources.map((r) => `- ${r}`));
  }
  return `${f.domain} wants you to sign in with your ${type}account:\n${f.address}\n\n${statement}\n${lines.join('\n')}`;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function optString(o: Record<string, unknown>, key: string): string | undefined {
  const v = o[key];
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string') throw new SiweRejected(`Invalid SIWE message: ${key} must be a string`);
  return v;
}

/**
 * The fields of `siwe/verify`'s `message`: the parsed object clients send, or (accepted too) the
 * EIP-4361 text itself.
 */
export function siweFieldsOf(message: unknown): SiweFields {
  if (typeof message === 'string') return parseSiweMessage(message);
  if (!isRecord(message)) throw new SiweRejected('Invalid SIWE message: message must be an object');
  const need = (key: string): string => {
    const v = optString(message, key);
    if (v === undefined) throw new SiweRejected(`Invalid SIWE message: ${key} is required`);
    return v;
  };
  const chainId = message['chainId'];
  if (!(typeof chainId === 'string' || typeof chainId === 'number')) {
    throw new SiweRejected('Invalid SIWE message: chainId is required');
  }
  const resources = message['resources'];
  if (
    resources !== undefined &&
    !(Array.isArray(resources) && resources.every((r) => typeof r === 'string'))
  ) {
    throw new SiweRejected('Invalid SIWE message: resources must be a list of URIs');
  }
  const accountType = optString(message, 'accountType');
  if (accountType !== undefined && !(SIWE_ACCOUNT_TYPES as readonly string[]).includes(accountType)) {
    throw new SiweRejected(
      `Invalid SIWE message: accountType must be one of ${SIWE_ACCOUNT_TYPES.join(', ')}`,
    );
  }
  const statement = optString(message, 'statement');
  const expirationTime = optString(message, 'expirationTime');
  const notBefore = optString(message, 'notBefore');
  const requestId = optString(message, 'requestId');
  return {
    domain: need('domain'),
    address: need('address'),
    ...(statement !== undefined ? { statement } : {}),
    uri: need('uri'),
    version: need('version'),
    chainId,
    nonce: need('nonce'),
    issuedAt: need('issuedAt'),
    ...(expirationTime !== undefined ? { expirationTime } : {}),
    ...(notBefore !== undefined ? { notBefore } : {}),
    ...(requestId !== undefined ? { requestId } : {}),
    ...(resources !== undefined && resources.length > 0 ? { resources: resources as string[] } : {}),
    ...(accountType !== undefined ? { accountType: accountType as SiweAccountType } : {}),
  };
}

export interface SiweCheckContext {
  /** Domains a message may name (`opensea.io`, the sandbox's host:port). */
  readonly domains: readonly string[];
  readonly chainIds: readonly number[];
  /** Sandbox clock, epoch ms. */
  readonly nowMs: number;
  /** How far `issuedAt` / `notBefore` may lie ahead of the clock. */
  readonly skewMs: number;
}

function dateOf(name: string, v: string): number {
  const t = Date.parse(v);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(v) || !Number.isFinite(t)) {
    throw new SiweRejected(`Invalid SIWE message: ${name} is not an RFC 3339 date-time`);
  }
  return t;
}

/**
 * Checks what a message says against the server (domain, version, chain id, URI, times) and returns
 * the checksummed address it claims. The nonce is the caller's (single use, kept by the store).
 */
export function checkSiweFields(f: SiweFields, ctx: SiweCheckContext): string {
  if (f.accountType === undefined) throw new SiweRejected(INVALID_SIGNATURE);
  if (!ctx.domains.includes(f.domain)) {
    throw new SiweRejected(`Invalid SIWE message: domain '${f.domain}' is not this service`);
  }
  if (f.version !== '1') throw new SiweRejected(`Invalid SIWE message: version must be 1`);
  const chainId =
    typeof f.chainId === 'number' ? f.chainId : /^\d+$/.test(f.chainId) ? Number(f.chainId) : NaN;
  if (!ctx.chainIds.includes(chainId)) {
    throw new SiweRejected(
      `Invalid SIWE message: chain id ${String(f.chainId)} is not supported (${ctx.chainIds.join(', ')})`,
    );
  }
  try {
    new URL(f.uri);
  } catch {
    throw new SiweRejected('Invalid SIWE message: uri is not a URI');
  }
  if (f.accountType !== 'Ethereum') {
    throw new SiweRejected(`Invalid SIWE message: accountType ${f.accountType} is not supported here`);
  }
  if (!isAddress(f.address)) throw new SiweRejected('Invalid SIWE message: address is not an address');
  if (dateOf('issuedAt', f.issuedAt) > ctx.nowMs + ctx.skewMs) {
    throw new SiweRejected('Invalid SIWE message: issuedAt is in the future');
  }
  if (f.expirationTime !== undefined && dateOf('expirationTime', f.expirationTime) <= ctx.nowMs) {
    throw new SiweRejected('Invalid SIWE message: the message has expired');
  }
  if (f.notBefore !== undefined && dateOf('notBefore', f.notBefore) > ctx.nowMs + ctx.skewMs) {
    throw new SiweRejected('Invalid SIWE message: the message is not valid yet (notBefore)');
  }
  return getAddress(f.address);
}

/** True when `signature` over the message text of `f` was made by `address` (EIP-191 personal_sign). */
export function signedBy(f: SiweFields, signature: string, address: string): boolean {
  try {
    return getAddress(verifyMessage(siweMessageText(f), signature)) === getAddress(address);
  } catch {
    return false;
  }
}
