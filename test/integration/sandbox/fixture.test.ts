import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChainFixture, startChainFixture } from '../../../src/sandbox/chain/fixture.ts';

describe('chain fixture: everything the sandbox settles on', () => {
  let fx: ChainFixture;
  beforeAll(async () => {
    fx = await startChainFixture({ chainId: 1, metadataBaseUrl: 'http://127.0.0.1:9/metadata', wallets: 4 });
  }, 240_000);
  afterAll(async () => {
    await fx?.stop();
  });

  it('deploys Seaport, WETH, the zone and three collections at distinct addresses with code', async () => {
    const addrs = [
      fx.seaport.seaport,
      fx.seaport.conduit,
      await fx.weth.getAddress(),
      await fx.zone.getAddress(),
      ...fx.collections.map((c) => c.address),
    ];
    expect(new Set(addrs).size).toBe(addrs.length);
    for (const a of addrs) expect((await fx.provider.getCode(a)).length).toBeGreaterThan(2);
    expect(fx.collections.map((c) => c.standard)).toEqual(['erc721', 'erc721', 'erc1155']);
    // inventory: ERC721 ids round-robin over the wallets, ERC1155 units to every wallet
    const apes = fx.collections[0]!;
    expect(await apes.contract.getFunction('ownerOf')(1n)).toBe(fx.wallets[0]!.address);
    expect(await apes.contract.getFunction('ownerOf')(2n)).toBe(fx.wallets[1]!.address);
    expect(await apes.contract.getFunction('totalSupply')()).toBe(BigInt(apes.supply));
    const items = fx.collections[2]!;
    expect(await items.contract.getFunction('balanceOf')(fx.wallets[3]!.address, 1n)).toBe(10n);
  });

  it('points collection metadata at the sandbox and trusts the zone signer', async () => {
    const apes = fx.collections[0]!;
    expect(await apes.contract.getFunction('tokenURI')(1n)).toBe(
      'http://127.0.0.1:9/metadata/harpoon-apes/1',
    );
    expect(await fx.zone.getFunction('isSigner')(fx.zoneSigner.address)).toBe(true);
    expect(await fx.zone.getFunction('isSigner')(fx.wallets[0]!.address)).toBe(false);
  });

  it('deploys the swap venue with seeded pairs', () => {
    expect(fx.uniswap?.tokens.map((t) => t.symbol)).toEqual(['USDC', 'HRP']);
    expect(Object.keys(fx.uniswap?.pairs ?? {})).toEqual(['USDC', 'HRP']);
  });

  it('funds the wallets it hands out', async () => {
    for (const w of fx.wallets) expect(await fx.provider.getBalance(w.address)).toBeGreaterThan(10n ** 21n);
  });
});
