/**
 * The market's reads of the chain: Seaport order status and counters, NFT ownership and
 * approvals, WETH balances and allowances, and chain time. At the latest block unless a block
 * number is given (consistent snapshots: creation checks at one block, status re-checks at the
 * block whose logs were processed).
 */
import type { Interface, JsonRpcProvider } from 'ethers';
import { erc20Interface, nftInterface, seaportInterface } from './seaport.ts';

export interface OnChainOrderStatus {
  readonly isValidated: boolean;
  readonly isCancelled: boolean;
  readonly totalFilled: bigint;
  readonly totalSize: bigint;
}

export class ChainReader {
  readonly provider: JsonRpcProvider;
  readonly seaport: string;
  readonly weth: string;
  /** Latest block seen and when (wall ms) it was seen, for the chain-time estimate. */
  #latest: { number: number; timestamp: bigint; seenAtMs: number } | undefined;

  constructor(provider: JsonRpcProvider, seaport: string, weth: string) {
    this.provider = provider;
    this.seaport = seaport;
    this.weth = weth;
  }

  async #call(to: string, iface: Interface, fn: string, args: readonly unknown[], blockTag?: number) {
    const data = iface.encodeFunctionData(fn, args);
    const ret = await this.provider.call({ to, data, ...(blockTag !== undefined ? { blockTag } : {}) });
    return iface.decodeFunctionResult(fn, ret);
  }

  async orderStatus(hash: string, blockTag?: number): Promise<OnChainOrderStatus> {
    const r = await this.#call(this.seaport, seaportInterface, 'getOrderStatus', [hash], blockTag);
    return {
      isValidated: r[0] as boolean,
      isCancelled: r[1] as boolean,
      totalFilled: r[2] as bigint,
      totalSize: r[3] as bigint,
    };
  }

  async counter(offerer: string, blockTag?: number): Promise<bigint> {
    return (await this.#call(this.seaport, seaportInterface, 'getCounter', [offerer], blockTag))[0] as bigint;
  }

  async onChainOrderHash(components: unknown): Promise<string> {
    return (await this.#call(this.seaport, seaportInterface, 'getOrderHash', [components]))[0] as string;
  }

  /** Owner of an ERC721 token; undefined when the token does not exist. */
  async ownerOf(contract: string, id: bigint, blockTag?: number): Promise<string | undefined> {
    try {
      return (await this.#call(contract, nftInterface, 'ownerOf', [id], blockTag))[0] as string;
    } catch {
      return undefined;
    }
  }

  async balanceOf1155(contract: string, owner: string, id: bigint, blockTag?: number): Promise<bigint> {
    return (await this.#call(contract, nftInterface, 'balanceOf', [owner, id], blockTag))[0] as bigint;
  }

  async isApprovedForAll(
    contract: string,
    owner: string,
    operator: string,
    blockTag?: number,
  ): Promise<boolean> {
    return (
      await this.#call(contract, nftInterface, 'isApprovedForAll', [owner, operator], blockTag)
    )[0] as boolean;
  }

  async erc20Balance(token: string, owner: string, blockTag?: number): Promise<bigint> {
    return (await this.#call(token, erc20Interface, 'balanceOf', [owner], blockTag))[0] as bigint;
  }

  async erc20Allowance(token: string, owner: string, spender: string, blockTag?: number): Promise<bigint> {
    return (await this.#call(token, erc20Interface, 'allowance', [owner, spender], blockTag))[0] as bigint;
  }

  async hasCode(address: string, blockTag?: number): Promise<boolean> {
    return (await this.provider.getCode(address, blockTag)) !== '0x';
  }

  /** Reads the latest block; updates the chain-time estimate. */
  async latestBlock(): Promise<{ number: number; timestamp: bigint }> {
    const b = await this.provider.getBlock('latest');
    if (!b) throw new Error('the chain returned no latest block');
    const ts = BigInt(b.timestamp);
    if (!this.#latest || b.number !== this.#latest.number || ts !== this.#latest.timestamp) {
      this.#latest = { number: b.number, timestamp: ts, seenAtMs: Date.now() };
    }
    return { number: b.number, timestamp: ts };
  }

  /**
   * Chain time estimate (seconds): the latest block's timestamp plus the wall time since that
   * block was first seen — what the next block's timestamp will be, near enough, on an
   * automining anvil. Before any block was read: wall time.
   */
  now(): bigint {
    if (!this.#latest) return BigInt(Math.floor(Date.now() / 1000));
    const elapsed = Math.max(0, Math.floor((Date.now() - this.#latest.seenAtMs) / 1000));
    return this.#latest.timestamp + BigInt(elapsed);
  }
}
