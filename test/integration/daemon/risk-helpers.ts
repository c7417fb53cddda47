/**
 * Bargains on demand for the risk tests: a listing well under the floor, signed by one of the
 * simulator's traders (they own the NFTs and approved the conduit) and posted into the sandbox's
 * market, so the sniper has something to buy within seconds instead of waiting for the simulator's
 * rare underpriced listings. Listing is a signature only: no transaction races the simulator's.
 */
import { Contract, getAddress, Wallet } from 'ethers';
import type { Sandbox } from '../../../src/sandbox/index.ts';
import { FIRST_TRADER_WALLET } from '../../../src/sandbox/simulator/index.ts';
import { listingParameters, type OrderContext, sign } from '../../../src/sandbox/simulator/orders.ts';

export interface Bargain {
  readonly slug: string;
  readonly contract: string;
  readonly tokenId: bigint;
  readonly seller: string;
  readonly price: bigint;
}

const used = new Set<string>();

function orderContext(sb: Sandbox): OrderContext {
  return {
    fx: sb.fixture,
    weth: getAddress(sb.weth),
    zone: getAddress(sb.info().zone),
    coll(slug) {
      const c = sb.catalog.bySlug(slug);
      if (!c) throw new Error(`unknown collection '${slug}'`);
      return c;
    },
  };
}

/** Lists an ERC-721 of `slug` held by a trader at `price` (ETH, fees included) for 30 minutes. */
export async function postBargain(sb: Sandbox, slug: string, price: bigint): Promise<Bargain> {
  const ctx = orderContext(sb);
  const c = ctx.coll(slug);
  const traders = new Map<string, string>();
  for (let i = FIRST_TRADER_WALLET; i < sb.wallets.length; i++) {
    const w = sb.wallets[i] as { address: string; privateKey: string };
    traders.set(w.address.toLowerCase(), w.privateKey);
  }
  const nft = new Contract(
    c.contract,
    ['function ownerOf(uint256) view returns (address)'],
    sb.fixture.provider,
  );
  const seaport = new Contract(
    sb.fixture.seaport.seaport,
    ['function getCounter(address) view returns (uint256)'],
    sb.fixture.provider,
  );
  for (let id = 1; id <= c.supply; id++) {
    const key = `${slug}/${id}`;
    if (used.has(key)) continue;
    const owner = ((await nft.getFunction('ownerOf')(BigInt(id))) as string).toLowerCase();
    const pk = traders.get(owner);
    if (pk === undefined) continue;
    used.add(key);
    const wallet = new Wallet(pk);
    const counter = (await seaport.getFunction('getCounter')(wallet.address)) as bigint;
    const parameters = await listingParameters(ctx, wallet, {
      slug,
      tokenId: BigInt(id),
      price,
      duration: 1800n,
      counter,
      now: sb.market.chainNow(),
    });
    const signature = await sign(ctx, wallet, parameters);
    await sb.market.createOrder('listing', sb.market.chain, 'seaport', { parameters, signature });
    return { slug, contract: c.contract.toLowerCase(), tokenId: BigInt(id), seller: owner, price };
  }
  throw new Error(`no ${slug} NFT held by a trader left to list`);
}
