import { getAddress, isAddress } from 'ethers';
import { HttpError } from '../errors.ts';

/**
 * The sandbox's accounts. Every well-formed address is an account (a wallet needs no sign-up), so
 * `GET /api/v2/accounts/{address}` answers any address; the sandbox's own wallets also have
 * usernames, by which they can be looked up and searched: the fixture's deployer (owner of every
 * collection) is `sandbox-operator`, its funded wallets `wallet-1` … `wallet-N` in the order the
 * sandbox prints them. There is no ENS registry on the sandbox chain: an ENS name resolves to
 * nothing (404). Social figures are zero: the sandbox has no social graph.
 */

export const OPERATOR_USERNAME = 'sandbox-operator';

export interface SandboxAccount {
  /** Checksummed. */
  readonly address: string;
  readonly username: string | undefined;
}

/** Usernames of the sandbox's own wallets (operator first, then the funded wallets). */
export function namedAccounts(operator: string | undefined, wallets: readonly string[]): SandboxAccount[] {
  const out: SandboxAccount[] = [];
  if (operator) out.push({ address: getAddress(operator), username: OPERATOR_USERNAME });
  wallets.forEach((w, i) => {
    out.push({ address: getAddress(w), username: `wallet-${i + 1}` });
  });
  return out;
}

const USERNAME = /^[A-Za-z0-9_.-]{1,256}$/;

export type AccountIdentifier =
  | { readonly kind: 'address'; readonly address: string }
  | { readonly kind: 'ens'; readonly name: string }
  | { readonly kind: 'username'; readonly username: string };

/**
 * A path identifier: an address, an ENS name (`*.eth`) or a username. 400 for anything else — a
 * `0x` string that is not 20 bytes of hex, or characters a username cannot hold.
 */
export function parseAccountIdentifier(raw: string | undefined, name: string): AccountIdentifier {
  const v = (raw ?? '').trim();
  if (/^0x/i.test(v)) {
    if (!isAddress(v)) throw new HttpError(400, `${name}: '${v}' is not a valid address`);
    return { kind: 'address', address: getAddress(v.toLowerCase()) };
  }
  if (!USERNAME.test(v)) {
    throw new HttpError(400, `${name}: '${v}' is not an address, a username or an ENS name`);
  }
  if (/\.eth$/i.test(v)) return { kind: 'ens', name: v.toLowerCase() };
  return { kind: 'username', username: v };
}

/** The account an identifier names, or undefined (unknown username, ENS name). */
export function findAccount(
  id: AccountIdentifier,
  named: readonly SandboxAccount[],
): SandboxAccount | undefined {
  if (id.kind === 'ens') return undefined;
  if (id.kind === 'username') {
    const u = id.username.toLowerCase();
    return named.find((a) => a.username?.toLowerCase() === u);
  }
  const a = id.address.toLowerCase();
  return named.find((x) => x.address.toLowerCase() === a) ?? { address: id.address, username: undefined };
}

/** AccountResponse. */
export function renderAccount(a: SandboxAccount, joinedMs: number): Record<string, unknown> {
  return {
    address: a.address.toLowerCase(),
    ...(a.username !== undefined ? { username: a.username, display_name: a.username } : {}),
    is_verified: false,
    is_agent: false,
    follower_count: 0,
    following_count: 0,
    social_media_accounts: [],
    bio: '',
    joined_date: new Date(joinedMs).toISOString().slice(0, 10),
  };
}

/** AccountResolveResponse. */
export function renderResolved(a: SandboxAccount): Record<string, unknown> {
  return { address: a.address, ...(a.username !== undefined ? { username: a.username } : {}) };
}
