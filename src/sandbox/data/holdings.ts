import { AbiCoder, getAddress, type Log, type Provider, id as topicOf, ZeroAddress } from 'ethers';

/**
 * Who holds which NFT, taken from the chain: the Transfer (ERC721) and TransferSingle/Batch
 * (ERC1155) logs of the sandbox's NFT contracts, replayed into balances. `sync()` reads the logs
 * of the blocks it has not seen yet, so every answer reflects the latest block (transfers by
 * Seaport fills, direct transfers, mints of drops).
 */

export const TRANSFER_TOPIC = topicOf('Transfer(address,address,uint256)');
export const TRANSFER_SINGLE_TOPIC = topicOf('TransferSingle(address,address,address,uint256,uint256)');
export const TRANSFER_BATCH_TOPIC = topicOf('TransferBatch(address,address,address,uint256[],uint256[])');

const coder = AbiCoder.defaultAbiCoder();
const ZERO = ZeroAddress.toLowerCase();

const topicAddress = (t: string): string => `0x${t.slice(-40)}`.toLowerCase();

/** contract → token id → owner → units (all lower-case / decimal). */
export type BalanceMap = Map<string, Map<string, Map<string, bigint>>>;

function move(b: BalanceMap, contract: string, id: string, from: string, to: string, units: bigint): void {
  let tokens = b.get(contract);
  if (!tokens) {
    tokens = new Map();
    b.set(contract, tokens);
  }
  let owners = tokens.get(id);
  if (!owners) {
    owners = new Map();
    tokens.set(id, owners);
  }
  if (from !== ZERO) {
    const left = (owners.get(from) ?? 0n) - units;
    if (left > 0n) owners.set(from, left);
    else owners.delete(from);
  }
  if (to !== ZERO) owners.set(to, (owners.get(to) ?? 0n) + units);
}

/** Applies one transfer log to the balances (ERC20-shaped Transfer logs, 3 topics, are ignored). */
export function applyTransferLog(b: BalanceMap, log: Pick<Log, 'address' | 'topics' | 'data'>): void {
  const contract = log.address.toLowerCase();
  const [t0] = log.topics;
  if (t0 === TRANSFER_TOPIC) {
    if (log.topics.length !== 4) return;
    const id = BigInt(log.topics[3] as string).toString();
    move(b, contract, id, topicAddress(log.topics[1] as string), topicAddress(log.topics[2] as string), 1n);
  } else if (t0 === TRANSFER_SINGLE_TOPIC) {
    const [id, value] = coder.decode(['uint256', 'uint256'], log.data) as unknown as [bigint, bigint];
    move(
      b,
      contract,
      id.toString(),
      topicAddress(log.topics[2] as string),
      topicAddress(log.topics[3] as string),
      value,
    );
  } else if (t0 === TRANSFER_BATCH_TOPIC) {
    const [ids, values] = coder.decode(['uint256[]', 'uint256[]'], log.data) as unknown as [
      bigint[],
      bigint[],
    ];
    const from = topicAddress(log.topics[2] as string);
    const to = topicAddress(log.topics[3] as string);
    ids.forEach((id, i) => {
      move(b, contract, id.toString(), from, to, values[i] ?? 0n);
    });
  }
}

export interface OwnerUnits {
  /** Checksummed. */
  readonly address: string;
  readonly quantity: bigint;
}

export interface Holding {
  readonly contract: string;
  readonly identifier: string;
  readonly quantity: bigint;
}

const byIdNumeric = (a: string, b: string): number => {
  const x = BigInt(a);
  const y = BigInt(b);
  return x < y ? -1 : x > y ? 1 : 0;
};

export class Holdings {
  readonly #provider: Provider;
  readonly #contracts: string[];
  readonly #balances: BalanceMap = new Map();
  #scanned = -1;
  #queue: Promise<void> = Promise.resolve();

  constructor(provider: Provider, contracts: readonly string[]) {
    this.#provider = provider;
    this.#contracts = [...new Set(contracts.map((c) => c.toLowerCase()))];
  }

  /** Reads the logs of the blocks not seen yet (calls are serialized). */
  sync(): Promise<void> {
    const run = this.#queue.then(() => this.#scan());
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #scan(): Promise<void> {
    const latest = await this.#provider.getBlockNumber();
    if (latest <= this.#scanned || this.#contracts.length === 0) return;
    const logs = await this.#provider.getLogs({
      address: this.#contracts,
      fromBlock: this.#scanned + 1,
      toBlock: latest,
      topics: [[TRANSFER_TOPIC, TRANSFER_SINGLE_TOPIC, TRANSFER_BATCH_TOPIC]],
    });
    logs.sort((a, b) => a.blockNumber - b.blockNumber || a.index - b.index);
    for (const log of logs) applyTransferLog(this.#balances, log);
    this.#scanned = latest;
  }

  /** Current holders of a token, largest holding first. */
  owners(contract: string, identifier: string): OwnerUnits[] {
    const owners = this.#balances.get(contract.toLowerCase())?.get(identifier);
    if (!owners) return [];
    return [...owners.entries()]
      .filter(([, q]) => q > 0n)
      .sort(([a, qa], [b, qb]) => (qa > qb ? -1 : qa < qb ? 1 : a < b ? -1 : 1))
      .map(([address, quantity]) => ({ address: getAddress(address), quantity }));
  }

  /** Token ids of a contract with at least one unit held, ascending. */
  tokenIds(contract: string): string[] {
    const tokens = this.#balances.get(contract.toLowerCase());
    if (!tokens) return [];
    return [...tokens.entries()]
      .filter(([, owners]) => [...owners.values()].some((q) => q > 0n))
      .map(([id]) => id)
      .sort(byIdNumeric);
  }

  /** Units of a token in circulation. */
  supply(contract: string, identifier: string): bigint {
    let n = 0n;
    for (const q of this.#balances.get(contract.toLowerCase())?.get(identifier)?.values() ?? []) n += q;
    return n;
  }

  /** Distinct addresses holding at least one unit of the contract. */
  numOwners(contract: string): number {
    const set = new Set<string>();
    for (const owners of this.#balances.get(contract.toLowerCase())?.values() ?? []) {
      for (const [a, q] of owners) if (q > 0n) set.add(a);
    }
    return set.size;
  }

  /** What an account holds, by contract (in the order given at construction) then token id. */
  holdingsOf(account: string): Holding[] {
    const who = account.toLowerCase();
    const out: Holding[] = [];
    for (const contract of this.#contracts) {
      const tokens = this.#balances.get(contract);
      if (!tokens) continue;
      const ids = [...tokens.keys()].sort(byIdNumeric);
      for (const id of ids) {
        const q = tokens.get(id)?.get(who) ?? 0n;
        if (q > 0n) out.push({ contract: getAddress(contract), identifier: id, quantity: q });
      }
    }
    return out;
  }
}
