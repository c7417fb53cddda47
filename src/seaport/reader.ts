/**
 * Chain reads Seaport trading needs, as one port, and its ethers adapter. The daemon's
 * composition root wires the adapter to its provider; tests pass fakes.
 */
import { Contract, type ContractRunner, type Provider } from 'ethers';
import { TransientError } from '../errors/index.ts';
import type { ApprovalReader } from './approvals.ts';
import { ERC20_APPROVAL_ABI, NFT_APPROVAL_ABI, SEAPORT_ABI } from './constants.ts';
import type { ChainClock, CounterReader } from './orders.ts';

export interface OrderStatus {
  readonly isValidated: boolean;
  readonly isCancelled: boolean;
  readonly totalFilled: bigint;
  readonly totalSize: bigint;
}

export interface SeaportReader extends CounterReader, ApprovalReader {
  getOrderStatus(orderHash: string): Promise<OrderStatus>;
}

/** Reads Seaport (`getCounter`, `getOrderStatus`), ERC20 allowances and NFT operator approvals. */
export function createEthersSeaportReader(runner: ContractRunner, protocolAddress: string): SeaportReader {
  const seaport = new Contract(protocolAddress, SEAPORT_ABI as unknown as string[], runner);
  const call = async <T>(c: Contract, fn: string, args: unknown[]): Promise<T> =>
    (await c.getFunction(fn).staticCall(...args)) as T;
  return Object.freeze({
    getCounter: async (offerer: string) => BigInt(await call<bigint>(seaport, 'getCounter', [offerer])),
    async getOrderStatus(orderHash: string): Promise<OrderStatus> {
      const r = await call<[boolean, boolean, bigint, bigint]>(seaport, 'getOrderStatus', [orderHash]);
      return { isValidated: r[0], isCancelled: r[1], totalFilled: BigInt(r[2]), totalSize: BigInt(r[3]) };
    },
    allowance: async (token: string, owner: string, spender: string) =>
      BigInt(
        await call<bigint>(
          new Contract(token, ERC20_APPROVAL_ABI as unknown as string[], runner),
          'allowance',
          [owner, spender],
        ),
      ),
    isApprovedForAll: async (collection: string, owner: string, operator: string) =>
      Boolean(
        await call<boolean>(
          new Contract(collection, NFT_APPROVAL_ABI as unknown as string[], runner),
          'isApprovedForAll',
          [owner, operator],
        ),
      ),
  });
}

/** Chain time from the latest block's timestamp. */
export function latestBlockClock(provider: Pick<Provider, 'getBlock'>): ChainClock {
  return {
    async nowSec() {
      const b = await provider.getBlock('latest');
      if (!b) throw new TransientError('chain_no_block', 'the provider returned no latest block');
      return BigInt(b.timestamp);
    },
  };
}
