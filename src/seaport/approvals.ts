/**
 * Approvals for Seaport trading, only ever to the configured conduit and only when needed:
 * - WETH: `approve(conduit, amount)` when the allowance is below what the offers need; the
 *   amount is exactly the need ('exact') or a configured cap ('capped', fewer approval txs; a need
 *   above the cap is refused, never approved).
 * - NFT collections: `setApprovalForAll(conduit, true)` when the conduit is not approved yet.
 * Each check reads the chain first through the injected reader and returns an unsigned
 * transaction for the chain layer's sender, or null when nothing is needed.
 */
import { Interface } from 'ethers';
import { RejectedError } from '../errors/index.ts';
import { ERC20_APPROVAL_ABI, NFT_APPROVAL_ABI } from './constants.ts';
import type { TxRequest } from './types.ts';
import { parseAddress } from './wire.ts';

export interface ApprovalReader {
  allowance(token: string, owner: string, spender: string): Promise<bigint>;
  isApprovedForAll(collection: string, owner: string, operator: string): Promise<boolean>;
}

export type WethApprovalMode =
  | { readonly kind: 'exact' }
  /** Approve `cap` whenever an approval is needed; refuse a need above it. */
  | { readonly kind: 'capped'; readonly cap: bigint };

export interface ApprovalOptions {
  readonly chainId: number;
  /** The configured conduit (operator of the conduit key the orders use). */
  readonly conduit: string;
  /** Default exact. */
  readonly wethMode?: WethApprovalMode;
}

export interface Approvals {
  readonly conduit: string;
  /** `approve(conduit, …)` on `token` when `owner`'s allowance to the conduit is below `needed`; else null. */
  weth(token: string, owner: string, needed: bigint): Promise<TxRequest | null>;
  /** `setApprovalForAll(conduit, true)` on `collection` when not yet approved; else null. */
  nft(collection: string, owner: string): Promise<TxRequest | null>;
}

const erc20 = new Interface(ERC20_APPROVAL_ABI as unknown as string[]);
const nft = new Interface(NFT_APPROVAL_ABI as unknown as string[]);
const MAX_UINT256 = (1n << 256n) - 1n;

export function createApprovals(options: ApprovalOptions, reader: ApprovalReader): Approvals {
  const conduit = parseAddress(options.conduit, 'conduit');
  if (/^0x0{40}$/.test(conduit))
    throw new RejectedError('seaport_bad_conduit', 'conduit is the zero address');
  const mode = options.wethMode ?? { kind: 'exact' };
  if (mode.kind === 'capped' && (mode.cap <= 0n || mode.cap > MAX_UINT256)) {
    throw new RejectedError('seaport_bad_cap', 'the WETH approval cap must be a positive uint256');
  }
  return Object.freeze({
    conduit,
    async weth(token: string, owner: string, needed: bigint): Promise<TxRequest | null> {
      parseAddress(token, 'token');
      parseAddress(owner, 'owner');
      if (typeof needed !== 'bigint' || needed < 0n || needed > MAX_UINT256) {
        throw new RejectedError('seaport_bad_amount', 'the needed allowance must be a uint256 bigint');
      }
      if (mode.kind === 'capped' && needed > mode.cap) {
        throw new RejectedError(
          'seaport_approval_cap',
          `needed WETH allowance ${needed} is above the configured cap ${mode.cap}`,
        );
      }
      const current = await reader.allowance(token, owner, conduit);
      if (current >= needed) return null;
      const amount = mode.kind === 'capped' ? mode.cap : needed;
      return Object.freeze({
        chainId: options.chainId,
        to: token,
        data: erc20.encodeFunctionData('approve', [conduit, amount]),
        value: 0n,
        purpose: `approve ${amount} of ${token} to the conduit (allowance ${current}, needed ${needed})`,
      });
    },
    async nft(collection: string, owner: string): Promise<TxRequest | null> {
      parseAddress(collection, 'collection');
      parseAddress(owner, 'owner');
      if (await reader.isApprovedForAll(collection, owner, conduit)) return null;
      return Object.freeze({
        chainId: options.chainId,
        to: collection,
        data: nft.encodeFunctionData('setApprovalForAll', [conduit, true]),
        value: 0n,
        purpose: `setApprovalForAll(conduit) on ${collection}`,
      });
    },
  });
}
