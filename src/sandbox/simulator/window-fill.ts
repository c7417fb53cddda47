/**
 * The trader side of the cancel-window fault (`cancel.fillInWindowRate` of `POST /_sandbox/faults`):
 * when an accepted cancel answers with a signature window, a simulated trader who was handed a
 * zone authorization just before the cancel fills the order on chain inside that window.
 *
 * `prepare` runs while the order is still active (before the market marks it cancelled): it picks
 * a trader — fixture wallets from index 3 on, never the maker — and, for an offer, a token that
 * trader owns and the offer covers (the offer's own token, or for a collection/trait offer any
 * covered token), then asks the market for fulfillment data whose zone authorization expires at
 * the window's end. `fill` then approves what the fill needs (the NFT for an offer, WETH for a
 * WETH listing), waits a moment (so the cancel answer goes out first) and sends the fulfillment.
 * The market's chain watcher records the sale like any other.
 *
 * It works without the simulator running (activity 0): the cancel triggers it. Its transactions
 * go through the same `SenderPool` as the simulator's, so the traders' nonces never collide.
 */
import { Contract, getAddress, Interface, MaxUint256, type Wallet, ZeroHash } from 'ethers';
import type { Catalog } from '../catalog/catalog.ts';
import type { ChainFixture } from '../chain/fixture.ts';
import type { SandboxMarket } from '../market/index.ts';
import { ERC20_ABI, NFT_ABI } from '../market/seaport.ts';
import type { WindowOrder } from '../market/types.ts';
import type { CancelWindowFiller, PreparedWindowFill } from '../server/types.ts';
import { fulfillmentTransaction } from './orders.ts';
import { SenderPool, type TxSender } from './sender.ts';

/** The first fixture wallet that fills in a window (0–2 stay free for the user, the daemon, tests). */
export const FIRST_WINDOW_TRADER = 3;
/** Fulfillment data requests tried per order before giving up (each reads the chain). */
const MAX_ATTEMPTS = 5;
/** The fill waits this long after the cancel is answered, at most a quarter of the window. */
const MAX_FILL_DELAY_MS = 1000;

const NFT_WRITE = new Interface(['function setApprovalForAll(address operator, bool approved)']);
const WETH_WRITE = new Interface([
  'function deposit() payable',
  'function approve(address spender, uint256 amount) returns (bool)',
]);

export interface WindowFillerOptions {
  readonly market: SandboxMarket;
  readonly fixture: ChainFixture;
  readonly catalog: Catalog;
  /** Shared with the simulator when there is one; default a pool of its own. */
  readonly senders?: SenderPool;
  /** Fixture wallet indices of the traders; default 3..(wallets − 1). */
  readonly traders?: readonly number[];
}

export interface WindowFiller extends CancelWindowFiller {
  readonly traders: readonly string[];
  /** Cancels pending delays and waits for fills in flight. */
  close(): Promise<void>;
}

interface Trader {
  readonly address: string;
  readonly wallet: Wallet;
  readonly sender: TxSender;
}

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** `list` rotated to start at `start` (a deterministic spread over traders and tokens). */
function rotate<T>(list: readonly T[], start: number): T[] {
  if (list.length === 0) return [];
  const k = start % list.length;
  return [...list.slice(k), ...list.slice(0, k)];
}

export function createWindowFiller(options: WindowFillerOptions): WindowFiller {
  const { market, fixture, catalog } = options;
  const senders = options.senders ?? new SenderPool();
  const indices =
    options.traders ??
    Array.from(
      { length: Math.max(0, fixture.wallets.length - FIRST_WINDOW_TRADER) },
      (_, i) => i + FIRST_WINDOW_TRADER,
    );
  const traders: Trader[] = indices.map((i) => {
    const wallet = fixture.wallets[i];
    if (!wallet) throw new Error(`trader wallet index ${i} is not a fixture wallet`);
    const address = getAddress(wallet.address);
    return { address, wallet, sender: senders.for(wallet, address) };
  });
  const seaport = fixture.seaport.seaport;
  const conduit = fixture.seaport.conduit;
  const weth = getAddress(String(fixture.weth.target));
  const chain = market.chain;
  const inFlight = new Set<Promise<unknown>>();
  const delays = new Set<() => void>();
  let closed = false;

  const nft = (contract: string) => new Contract(contract, NFT_ABI as unknown as string[], fixture.provider);
  const erc20 = () => new Contract(weth, ERC20_ABI as unknown as string[], fixture.provider);

  /** The traders (not the maker) holding token `id`, in a deterministic order for this order. */
  async function holders(order: WindowOrder, id: bigint, candidates: readonly Trader[]): Promise<Trader[]> {
    if (order.standard === 'erc721') {
      const owner = await (nft(order.contract).getFunction('ownerOf')(id) as Promise<string>).catch(
        () => undefined,
      );
      const t = owner === undefined ? undefined : candidates.find((c) => same(c.address, owner));
      return t ? [t] : [];
    }
    const out: Trader[] = [];
    for (const t of candidates) {
      const units = (await nft(order.contract).getFunction('balanceOf')(t.address, id)) as bigint;
      if (units > 0n) out.push(t);
    }
    return out;
  }

  /** Tokens the offer covers, its own one first (item offer) or spread from a point the hash picks. */
  function coveredTokens(order: WindowOrder, spread: number): bigint[] {
    if (order.tokenId !== undefined) return [order.tokenId];
    const c = catalog.bySlug(order.slug);
    if (!c) return [];
    const ids: bigint[] = [];
    for (let id = 1n; id <= BigInt(c.supply); id++) if (market.offerCovers(order.hash, id)) ids.push(id);
    return rotate(ids, spread);
  }

  function delay(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        delays.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      timer.unref?.();
      delays.add(done);
    });
  }

  /**
   * What the fill moves from the trader: an offer's NFT and the fees it pays in WETH out of the
   * proceeds (the operator must be allowed both); a WETH listing's price (wrapped if short).
   */
  async function ensureApprovals(t: Trader, order: WindowOrder, operator: string): Promise<void> {
    if (order.side === 'offer') {
      const approved = (await nft(order.contract).getFunction('isApprovedForAll')(
        t.address,
        operator,
      )) as boolean;
      if (!approved) {
        await t.sender.send({
          to: order.contract,
          data: NFT_WRITE.encodeFunctionData('setApprovalForAll', [operator, true]),
        });
      }
    } else if (order.currency.native) {
      return;
    }
    const token = erc20();
    const [balance, allowance] = await Promise.all([
      token.getFunction('balanceOf')(t.address) as Promise<bigint>,
      token.getFunction('allowance')(t.address, operator) as Promise<bigint>,
    ]);
    if (order.side === 'listing' && balance < order.price) {
      await t.sender.send({
        to: weth,
        data: WETH_WRITE.encodeFunctionData('deposit'),
        value: order.price - balance,
      });
    }
    if (allowance < order.price) {
      await t.sender.send({
        to: weth,
        data: WETH_WRITE.encodeFunctionData('approve', [operator, MaxUint256]),
      });
    }
  }

  function prepared(
    t: Trader,
    order: WindowOrder,
    res: Awaited<ReturnType<SandboxMarket['windowFulfillment']>>,
    validUntil: bigint,
  ): PreparedWindowFill {
    const input = res.fulfillment_data.transaction.input_data as { fulfillerConduitKey?: string };
    const operator =
      input.fulfillerConduitKey === undefined || input.fulfillerConduitKey === ZeroHash ? seaport : conduit;
    const tx = fulfillmentTransaction(res);
    return {
      trader: t.address,
      fill() {
        if (closed) return Promise.reject(new Error('the window filler is closed'));
        const windowMs = Number(validUntil - market.chainNow()) * 1000;
        const run = (async () => {
          await delay(Math.max(0, Math.min(MAX_FILL_DELAY_MS, windowMs / 4)));
          if (closed) throw new Error('the window filler is closed');
          await ensureApprovals(t, order, operator);
          const receipt = await t.sender.send(tx);
          // Recorded by the chain watcher now rather than at its next poll.
          await market.sync().catch(() => undefined);
          return receipt.hash;
        })();
        inFlight.add(run);
        void run.then(
          () => inFlight.delete(run),
          () => inFlight.delete(run),
        );
        return run;
      },
    };
  }

  return {
    traders: traders.map((t) => t.address),

    async prepare(order, validUntil) {
      if (closed) return undefined;
      const spread = Number(BigInt(order.hash) % 1_000_003n);
      const candidates = rotate(
        traders.filter((t) => !same(t.address, order.maker)),
        spread,
      );
      if (candidates.length === 0) return undefined;
      const protocol_address = seaport;
      let attempts = 0;
      if (order.side === 'listing') {
        for (const t of candidates) {
          if (attempts++ >= MAX_ATTEMPTS) break;
          try {
            const res = await market.windowFulfillment(
              'listing',
              {
                listing: { hash: order.hash, chain, protocol_address },
                fulfiller: { address: t.address },
                units_to_fill: order.remaining.toString(),
              },
              validUntil,
            );
            return prepared(t, order, res, validUntil);
          } catch {
            // this trader cannot (the market says why); the next may
          }
        }
        return undefined;
      }
      for (const id of coveredTokens(order, spread)) {
        for (const t of await holders(order, id, candidates)) {
          if (attempts++ >= MAX_ATTEMPTS) return undefined;
          try {
            const res = await market.windowFulfillment(
              'offer',
              {
                offer: { hash: order.hash, chain, protocol_address },
                fulfiller: { address: t.address },
                consideration: { asset_contract_address: order.contract, token_id: id.toString() },
              },
              validUntil,
            );
            return prepared(t, order, res, validUntil);
          } catch {
            // not fillable with this token by this trader; try the next
          }
        }
      }
      return undefined;
    },

    async close() {
      closed = true;
      for (const d of [...delays]) d();
      await Promise.allSettled([...inFlight]);
    },
  };
}
