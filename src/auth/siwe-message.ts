// The Sign-In with Ethereum message `harpoon auth login` signs (EIP-4361, with the account type
// the marketplace requires in its header line), and the parsed fields `siwe/verify` wants beside
// the signature. Pure: the nonce, the time and the address come from the caller.
import { getAddress } from 'ethers';
import type { SiweMessageFields } from '../api/types.ts';

/** The marketplace's own sign-in statement (its Terms of Service and Privacy Policy). */
export const SIWE_STATEMENT =
  'Click to sign in and accept the OpenSea Terms of Service (https://opensea.io/tos) and Privacy Policy (https://opensea.io/privacy).';

/**
 * The domain and URI a sign-in message names for an API base URL: the web site the API belongs to
 * (`https://api.opensea.io` → `opensea.io`, `https://testnets-api.opensea.io` → `testnets.opensea.io`),
 * else the API's own host and origin (a local sandbox: `127.0.0.1:41234`, `http://127.0.0.1:41234`).
 */
export function siweOriginOf(baseUrl: string): { readonly domain: string; readonly uri: string } {
  const u = new URL(baseUrl);
  const host = u.host.toLowerCase();
  const site = /^api\.(.+)$/.exec(host)?.[1] ?? /^([a-z0-9-]+)-api\.(.+)$/.exec(host)?.slice(1).join('.');
  const domain = site ?? host;
  return { domain, uri: `${u.protocol}//${domain}` };
}

export interface SiweMessageInput {
  readonly baseUrl: string;
  /** The signing wallet (any case; written checksummed). */
  readonly address: string;
  readonly chainId: number;
  /** From `POST /api/v2/auth/siwe/nonce`. */
  readonly nonce: string;
  /** Epoch ms of signing. */
  readonly nowMs: number;
  readonly statement?: string;
}

export interface SiweMessage {
  /** The text the wallet signs (EIP-191 personal_sign). */
  readonly text: string;
  /** The same message as parsed fields, for `siwe/verify`. */
  readonly fields: SiweMessageFields;
}

/**
 * Builds the EIP-4361 message for an Ethereum account (header `… sign in with your Ethereum
 * account:`). No expiration time: the nonce is single use and short-lived on the server, and a
 * server clock ahead of ours would refuse a message that expired by its time.
 */
export function buildSiweMessage(input: SiweMessageInput): SiweMessage {
  if (!Number.isSafeInteger(input.chainId) || input.chainId <= 0) {
    throw new RangeError(`chain id must be a positive whole number, got ${input.chainId}`);
  }
  if (!/^[A-Za-z0-9]{8,}$/.test(input.nonce)) {
    throw new RangeError('the nonce must be at least 8 letters or digits (EIP-4361)');
  }
  const { domain, uri } = siweOriginOf(input.baseUrl);
  const address = getAddress(input.address);
  const statement = input.statement ?? SIWE_STATEMENT;
  if (statement.includes('\n')) throw new RangeError('the statement must be one line');
  const issuedAt = new Date(input.nowMs).toISOString();
  const fields: SiweMessageFields = {
    domain,
    address,
    statement,
    uri,
    version: '1',
    // as the official SDK's parser gives it: the text of the `Chain ID:` line
    chainId: String(input.chainId),
    nonce: input.nonce,
    issuedAt,
    accountType: 'Ethereum',
  };
  const text = [
    `${domain} wants you to sign in with your Ethereum account:`,
    address,
    '',
    statement,
    '',
    `URI: ${uri}`,
    'Version: 1',
    `Chain ID: ${input.chainId}`,
    `Nonce: ${input.nonce}`,
    `Issued At: ${issuedAt}`,
  ].join('\n');
  return { text, fields };
}
