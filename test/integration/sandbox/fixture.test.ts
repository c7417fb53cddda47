import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChainFixture, startChainFixture } from '../../../src/sandbox/chain/fixture.ts';
import { addressLeaf } from '../../../src/sandbox/merkle.ts';

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

  it('deploys the drops in their activity states', async () => {
    expect(fx.drops.map((d) => d.slug)).toEqual([
      'harpoon-genesis',
      'harpoon-future',
      'harpoon-ended',
      'harpoon-paused',
    ]);
    const genesis = fx.drops[0]!;
    expect(genesis.stages[0]!.allowlist).toEqual(fx.wallets.slice(0, 3).map((w) => w.address));
    expect(await genesis.contract.getFunction('stageCount')()).toBe(2n);
    expect(await fx.drops[3]!.contract.getFunction('paused')()).toBe(true);
    // an allowlisted wallet can mint in the allowlist stage with its proof
    const w = fx.wallets[1]!;
    const proof = genesis.allowlistTree!.proof(addressLeaf(w.address))!;
    const asW = genesis.contract.connect(w) as typeof genesis.contract;
    await (
      await asW.getFunction('mint')(0n, w.address, 1n, proof, { value: genesis.stages[0]!.priceWei })
    ).wait();
    expect(await genesis.contract.getFunction('ownerOf')(1n)).toBe(w.address);
  });

  it('funds the wallets it hands out', async () => {
    for (const w of fx.wallets) expect(await fx.provider.getBalance(w.address)).toBeGreaterThan(10n ** 21n);
  });
});
