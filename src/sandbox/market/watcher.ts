/**
 * Order status followed from the chain. A poller reads every log of Seaport, WETH and the
 * collections from the last processed block (no block is skipped: the cursor only advances after
 * a range was handled), records sales and transfers, and re-checks the orders a log touches
 * against the latest state (ownership, approvals, WETH funds, counters, fills, cancels).
 */
import type { Log, LogDescription } from 'ethers';
import type { CatalogCollection } from '../catalog/catalog.ts';
import { isFinal, type StoredOrder } from './book.ts';
import { criteriaInfo, type MarketContext, orderEventBase, priceInfo, sameAddress } from './context.ts';
import { erc20Interface, ItemType, nftInterface, seaportInterface } from './seaport.ts';
import type { OrderStatus } from './types.ts';
import { operatorOf } from './verify.ts';

/** Largest block range per `eth_getLogs`. */
const MAX_RANGE = 2_000;

export interface StatusCounters {
  fills: number;
  cancels: number;
}

/** Moves an order to `next`, recording the event the transition implies. */
export function transition(
  ctx: MarketContext,
  counters: StatusCounters,
  o: StoredOrder,
  next: OrderStatus,
  tx?: { txHash: string; blockNumber: number; logIndex: number },
): void {
  const prev = o.status;
  if (prev === next) return;
  o.status = next;
  if (isFinal(next)) o.closedAtMs = ctx.now();
  const base = orderEventBase(ctx, o);
  if (next === 'CANCELLED') {
    counters.cancels++;
    const criteria = criteriaInfo(o);
    ctx.events.append({
      kind: 'cancel',
      ...base,
      price: priceInfo(o, ctx.reader.now()),
      quantity: Number(o.remaining),
      startDate: Number(o.components.startTime),
      expirationDate: Number(o.components.endTime),
      ...(criteria ? { criteria } : {}),
      ...(tx ?? {}),
    });
  } else if (next === 'INACTIVE' && prev === 'ACTIVE') {
    ctx.events.append({ kind: 'order_invalidate', ...base });
  } else if (next === 'ACTIVE' && prev === 'INACTIVE') {
    ctx.events.append({ kind: 'order_revalidate', ...base });
  }
}

/** Whether the maker can honour the order at block `b` (assets/funds and approvals). */
async function makerCanHonour(ctx: MarketContext, o: StoredOrder, b: number): Promise<boolean> {
  const c = o.components;
  const operator = operatorOf(ctx, c.conduitKey);
  if (o.side === 'listing') {
    const contract = o.collection.contract;
    const id = o.tokenId as bigint;
    const units = (o.remaining * (c.offer[0]?.startAmount ?? o.quantity)) / o.quantity;
    if (o.collection.standard === 'erc721') {
      if (!sameAddress(await ctx.reader.ownerOf(contract, id, b), c.offerer)) return false;
    } else if ((await ctx.reader.balanceOf1155(contract, c.offerer, id, b)) < units) {
      return false;
    }
    return ctx.reader.isApprovedForAll(contract, c.offerer, operator, b);
  }
  const total = c.offer[0]?.startAmount ?? 0n;
  const need = (total * o.remaining) / o.quantity;
  if ((await ctx.reader.erc20Balance(ctx.weth, c.offerer, b)) < need) return false;
  return (await ctx.reader.erc20Allowance(ctx.weth, c.offerer, operator, b)) >= need;
}

/** Expires orders whose endTime passed (chain time). */
export function sweepExpired(ctx: MarketContext, counters: StatusCounters): void {
  const now = ctx.reader.now();
  for (const o of ctx.book.all()) {
    if (!isFinal(o.status) && o.components.endTime <= now) transition(ctx, counters, o, 'EXPIRED');
  }
}

/**
 * Re-derives an order's status from the chain state at block `b` — the last block whose logs were
 * processed, so what the logs record (sales, cancels with their transactions) and what the reads
 * see never disagree. Returns false when the order was verified at a later block (re-check later).
 */
export async function recheckOrder(
  ctx: MarketContext,
  counters: StatusCounters,
  o: StoredOrder,
  b: number,
): Promise<boolean> {
  if (o.verifiedAtBlock > b) return false;
  if (isFinal(o.status)) return true;
  if (o.components.endTime <= ctx.reader.now()) {
    transition(ctx, counters, o, 'EXPIRED');
    return true;
  }
  if (o.checkedAtBlock === b) return true;
  const checked = await readStatusAt(ctx, counters, o, b);
  if (checked) o.checkedAtBlock = b;
  return checked;
}

/** Reads the order's status at block `b` from the chain and applies it. */
async function readStatusAt(
  ctx: MarketContext,
  counters: StatusCounters,
  o: StoredOrder,
  b: number,
): Promise<boolean> {
  const st = await ctx.reader.orderStatus(o.hash, b);
  if (st.totalSize > 0n) {
    o.remaining = (o.quantity * (st.totalSize - st.totalFilled)) / st.totalSize;
    if (st.totalFilled >= st.totalSize) {
      transition(ctx, counters, o, 'FULFILLED');
      return true;
    }
  }
  if (st.isCancelled || (await ctx.reader.counter(o.components.offerer, b)) !== o.components.counter) {
    transition(ctx, counters, o, 'CANCELLED');
    return true;
  }
  if (isFinal(o.status)) return true; // cancelled off-chain while we were reading
  const ok = await makerCanHonour(ctx, o, b);
  if (!isFinal(o.status)) transition(ctx, counters, o, ok ? 'ACTIVE' : 'INACTIVE');
  return true;
}

interface TxRef {
  readonly txHash: string;
  readonly blockNumber: number;
  readonly logIndex: number;
}

/** A log this code cannot decode (foreign event with a clashing topic) is skipped. */
function safeParse(f: () => LogDescription | null): LogDescription | null {
  try {
    return f();
  } catch {
    return null;
  }
}

const txOf = (log: Log): TxRef => ({
  txHash: log.transactionHash,
  blockNumber: log.blockNumber,
  logIndex: log.index,
});

export class ChainWatcher {
  readonly #ctx: MarketContext;
  readonly #counters: StatusCounters;
  readonly #intervalMs: number;
  readonly #dirty = new Set<string>();
  #last = -1;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;
  #chain: Promise<void> = Promise.resolve();
  #lastError: unknown;
  readonly #startBlock: number | undefined;
  #init: Promise<void> | undefined;

  constructor(ctx: MarketContext, counters: StatusCounters, intervalMs: number, startBlock?: number) {
    this.#ctx = ctx;
    this.#counters = counters;
    this.#intervalMs = intervalMs;
    this.#startBlock = startBlock;
    this.ready().catch(() => undefined); // baseline now; a failure is retried by the next caller
  }

  /**
   * Resolves once the baseline block is set (the latest block at creation, or `startBlock - 1`);
   * orders must not be verified before, or logs between their check and the baseline would be
   * skipped. A failed attempt is retried on the next call.
   */
  ready(): Promise<void> {
    this.#init ??= this.#ctx.reader.latestBlock().then(
      (b) => {
        if (this.#last < 0) this.#last = this.#startBlock !== undefined ? this.#startBlock - 1 : b.number;
      },
      (e: unknown) => {
        this.#init = undefined;
        this.#lastError = e;
        throw e;
      },
    );
    return this.#init;
  }

  get lastProcessedBlock(): number {
    return this.#last;
  }

  get lastError(): unknown {
    return this.#lastError;
  }

  start(): void {
    const tick = () => {
      if (this.#closed) return;
      void this.poll()
        .catch(() => undefined)
        .finally(() => {
          if (this.#closed) return;
          this.#timer = setTimeout(tick, this.#intervalMs);
          this.#timer.unref?.();
        });
    };
    this.#timer = setTimeout(tick, this.#intervalMs);
    this.#timer.unref?.();
  }

  /** Marks an order for a re-check on the next poll. */
  touch(hash: string): void {
    this.#dirty.add(hash);
  }

  /** Processes everything up to the latest block now (serialized with the timer's polls). */
  poll(): Promise<void> {
    const run = this.#chain.then(() => this.#pollOnce());
    this.#chain = run.catch((e: unknown) => {
      this.#lastError = e;
    });
    return run;
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    await this.#chain;
  }

  async #pollOnce(): Promise<void> {
    await this.ready();
    const ctx = this.#ctx;
    // Cheap check first: with no new block there are no logs to read (the hot path of
    // fulfillment data); the full block is fetched only when the chain moved.
    const latestNumber =
      this.#last >= 0 ? await ctx.reader.provider.getBlockNumber() : Number.POSITIVE_INFINITY;
    const latest = latestNumber === this.#last ? { number: this.#last } : await ctx.reader.latestBlock();
    const addresses = [ctx.seaport, ctx.weth, ...ctx.catalog.collections().map((c) => c.contract)];
    while (this.#last < latest.number) {
      const from = this.#last + 1;
      const to = Math.min(latest.number, from + MAX_RANGE - 1);
      const logs = await ctx.reader.provider.getLogs({ address: addresses, fromBlock: from, toBlock: to });
      logs.sort((a, b) => a.blockNumber - b.blockNumber || a.index - b.index);
      for (const log of logs) this.#handle(log);
      this.#last = to;
    }
    sweepExpired(ctx, this.#counters);
    const dirty = [...this.#dirty];
    this.#dirty.clear();
    for (const h of dirty) {
      const o = ctx.book.get(h);
      if (!o) continue;
      try {
        if (!(await recheckOrder(ctx, this.#counters, o, this.#last))) this.#dirty.add(h);
      } catch (e) {
        this.#dirty.add(h);
        throw e;
      }
    }
  }

  #touchAll(orders: readonly StoredOrder[], pred: (o: StoredOrder) => boolean = () => true): void {
    for (const o of orders) if (!isFinal(o.status) && pred(o)) this.#dirty.add(o.hash);
  }

  #handle(log: Log): void {
    const ctx = this.#ctx;
    const address = log.address.toLowerCase();
    const topics = [...log.topics];
    if (address === ctx.seaport.toLowerCase()) {
      this.#handleSeaport(log, topics);
      return;
    }
    if (address === ctx.weth.toLowerCase()) {
      const ev = safeParse(() => erc20Interface.parseLog({ topics, data: log.data }));
      if (!ev) return;
      const parties: string[] = [];
      if (ev.name === 'Transfer' || ev.name === 'Approval')
        parties.push(ev.args[0] as string, ev.args[1] as string);
      else if (ev.name === 'Deposit' || ev.name === 'Withdrawal') parties.push(ev.args[0] as string);
      for (const p of parties) this.#touchAll(ctx.book.byMaker(p), (o) => o.side === 'offer');
      return;
    }
    // Read from the catalog on each log: an owner's fee change replaces its collection object.
    const coll = ctx.catalog.byContract(address);
    if (!coll) return;
    const ev = safeParse(() => nftInterface.parseLog({ topics, data: log.data }));
    if (!ev) return;
    if (ev.name === 'Transfer') {
      this.#transfer(coll, log, ev.args[0] as string, ev.args[1] as string, ev.args[2] as bigint, 1n);
    } else if (ev.name === 'TransferSingle') {
      this.#transfer(
        coll,
        log,
        ev.args[1] as string,
        ev.args[2] as string,
        ev.args[3] as bigint,
        ev.args[4] as bigint,
      );
    } else if (ev.name === 'TransferBatch') {
      const ids = ev.args[3] as bigint[];
      const values = ev.args[4] as bigint[];
      ids.forEach((id, i) => {
        this.#transfer(coll, log, ev.args[1] as string, ev.args[2] as string, id, values[i] ?? 0n);
      });
    } else if (ev.name === 'ApprovalForAll') {
      this.#touchAll(
        ctx.book.byMaker(ev.args[0] as string),
        (o) => o.side === 'listing' && sameAddress(o.collection.contract, coll.contract),
      );
    }
  }

  #transfer(coll: CatalogCollection, log: Log, from: string, to: string, id: bigint, quantity: bigint): void {
    const ctx = this.#ctx;
    const mint = /^0x0{40}$/.test(from);
    ctx.events.append({
      kind: mint ? 'mint' : 'transfer',
      chain: ctx.chain,
      collection: coll.slug,
      nft: { contract: coll.contract, identifier: id.toString(), standard: coll.standard },
      from,
      to,
      quantity: Number(quantity),
      ...txOf(log),
    });
    this.#touchAll(ctx.book.byToken(coll.contract, id), (o) => o.side === 'listing');
  }

  #handleSeaport(log: Log, topics: string[]): void {
    const ctx = this.#ctx;
    const ev = safeParse(() => seaportInterface.parseLog({ topics, data: log.data }));
    if (!ev) return;
    if (ev.name === 'OrderFulfilled') {
      const o = ctx.book.get(ev.args[0] as string);
      if (!o) return;
      this.#sale(o, log, ev.args[3] as string, ev.args[4] as unknown[][], ev.args[5] as unknown[][]);
      this.#dirty.add(o.hash);
    } else if (ev.name === 'OrderCancelled') {
      const o = ctx.book.get(ev.args[0] as string);
      if (!o || isFinal(o.status)) return;
      transition(ctx, this.#counters, o, 'CANCELLED', txOf(log));
    } else if (ev.name === 'CounterIncremented') {
      const newCounter = ev.args[0] as bigint;
      for (const o of ctx.book.byMaker(ev.args[1] as string)) {
        if (!isFinal(o.status) && o.components.counter < newCounter) {
          transition(ctx, this.#counters, o, 'CANCELLED', txOf(log));
        }
      }
    }
  }

  #sale(o: StoredOrder, log: Log, recipient: string, spent: unknown[][], received: unknown[][]): void {
    const ctx = this.#ctx;
    const offerer = o.components.offerer;
    let tokenId = o.tokenId;
    let units = 0n;
    let amount = 0n;
    if (o.side === 'listing') {
      for (const s of spent)
        if (Number(s[0]) === ItemType.ERC721 || Number(s[0]) === ItemType.ERC1155) units += s[3] as bigint;
      for (const r of received) if (Number(r[0]) <= ItemType.ERC20) amount += r[3] as bigint;
    } else {
      for (const r of received) {
        const t = Number(r[0]);
        if ((t === ItemType.ERC721 || t === ItemType.ERC1155) && sameAddress(r[4] as string, offerer)) {
          tokenId = r[2] as bigint;
          units += r[3] as bigint;
        }
      }
      for (const s of spent) if (Number(s[0]) <= ItemType.ERC20) amount += s[3] as bigint;
    }
    const [seller, buyer] = o.side === 'listing' ? [offerer, recipient] : [recipient, offerer];
    this.#counters.fills++;
    ctx.events.append({
      kind: 'sale',
      ...orderEventBase(ctx, o),
      ...(tokenId !== undefined
        ? {
            nft: {
              contract: o.collection.contract,
              identifier: tokenId.toString(),
              standard: o.collection.standard,
            },
          }
        : {}),
      taker: o.side === 'listing' ? buyer : seller,
      price: priceInfo(o, 0n, amount),
      quantity: Number(units),
      seller,
      buyer,
      ...txOf(log),
    });
    o.remaining = o.remaining > units ? o.remaining - units : 0n;
    if (o.remaining === 0n) {
      o.status = 'FULFILLED';
      o.closedAtMs = ctx.now();
    }
  }
}
