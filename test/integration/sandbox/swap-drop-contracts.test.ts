import { Contract, JsonRpcProvider, NonceManager, parseEther, parseUnits, Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnvilHandle, DEFAULT_MNEMONIC, startAnvil } from '../../../src/sandbox/chain/anvil.ts';
import {
  deployContract,
  loadProjectArtifacts,
  type ProjectArtifacts,
} from '../../../src/sandbox/chain/contracts.ts';
import { deployUniswap, type UniswapDeployment } from '../../../src/sandbox/chain/uniswap.ts';

describe('swap venue and drop contract on anvil', () => {
  let anvil: AnvilHandle;
  let provider: JsonRpcProvider;
  let artifacts: ProjectArtifacts;
  let admin: NonceManager;
  let user: Wallet;
  let weth: Contract;
  let uni: UniswapDeployment;

  beforeAll(async () => {
    anvil = await startAnvil({ chainId: 1 });
    provider = new JsonRpcProvider(anvil.rpcUrl, 1, { staticNetwork: true, cacheTimeout: -1 });
    admin = new NonceManager(Wallet.fromPhrase(DEFAULT_MNEMONIC, provider));
    user = new Wallet(Wallet.createRandom().privateKey, provider);
    await (await admin.sendTransaction({ to: user.address, value: parseEther('100') })).wait();
    artifacts = await loadProjectArtifacts();
    weth = await deployContract(artifacts, 'WETH9', admin);
    uni = await deployUniswap(admin, artifacts, await weth.getAddress());
  }, 240_000);

  afterAll(async () => {
    provider?.destroy();
    await anvil?.stop();
  });

  it('seeds token/WETH pairs with the configured liquidity', async () => {
    expect(uni.tokens.map((t) => t.symbol)).toEqual(['USDC', 'HRP']);
    const pair = new Contract(uni.pairs['USDC']!, uni.pairAbi as never[], provider);
    const [r0, r1] = (await pair.getFunction('getReserves')()) as [bigint, bigint];
    const reserves = [r0, r1].sort((a, b) => (a < b ? -1 : 1));
    // 500 ETH against 1.5M USDC (6 decimals): both sides present.
    expect(reserves).toContain(parseEther('500'));
    expect(reserves).toContain(parseUnits('1500000', 6));
  });

  it('really swaps ETH for a token through the router at about the pool price', async () => {
    const router = new Contract(uni.router, uni.routerAbi as never[], user);
    const usdc = uni.tokens[0]!;
    const path = [await weth.getAddress(), usdc.address];
    const [, quoted] = (await router.getFunction('getAmountsOut')(parseEther('1'), path)) as [bigint, bigint];
    expect(quoted).toBeGreaterThan(parseUnits('2900', 6)); // 3000/ETH minus 0.3 % fee and impact
    expect(quoted).toBeLessThan(parseUnits('3000', 6));
    await (
      await router.getFunction('swapExactETHForTokens')(
        (quoted * 99n) / 100n,
        path,
        user.address,
        2n ** 40n,
        // The first swap in a new second also updates the pair's price accumulators, which a gas
        // estimate made within the previous second does not include: give it room.
        { value: parseEther('1'), gasLimit: 300_000n },
      )
    ).wait();
    expect(await usdc.contract.getFunction('balanceOf')(user.address)).toBe(quoted);
  });

  it('a drop mints through an active stage to the minter and enforces price, limit and pause', async () => {
    const drop = await deployContract(artifacts, 'SandboxDrop', admin, [
      'Harpoon Drop',
      'HDRP',
      'http://x/m/',
      100n,
    ]);
    const now = (await provider.getBlock('latest'))!.timestamp;
    const stage = {
      start: BigInt(now - 10),
      end: BigInt(now + 3600),
      price: parseEther('0.01'),
      perWalletLimit: 2,
      supply: 50,
      minted: 0,
      allowlistRoot: `0x${'00'.repeat(32)}`,
    };
    await (await drop.getFunction('setStage')(0n, stage)).wait();
    const asUser = drop.connect(user) as Contract;
    const recipient = Wallet.createRandom().address;
    await (await asUser.getFunction('mint')(0n, recipient, 2n, [], { value: parseEther('0.02') })).wait();
    expect(await drop.getFunction('ownerOf')(1n)).toBe(recipient);
    expect(await drop.getFunction('ownerOf')(2n)).toBe(recipient);
    await expect(
      asUser.getFunction('mint').staticCall(0n, recipient, 1n, [], { value: parseEther('0.01') }),
    ).rejects.toThrow(/WalletLimitExceeded/);
    await expect(
      asUser.getFunction('mint').staticCall(0n, user.address, 1n, [], { value: parseEther('0.001') }),
    ).rejects.toThrow(/WrongPayment/);
    await (await drop.getFunction('setPaused')(true)).wait();
    await expect(
      asUser.getFunction('mint').staticCall(0n, user.address, 1n, [], { value: parseEther('0.01') }),
    ).rejects.toThrow(/DropPaused/);
    await expect(drop.getFunction('mint').staticCall(user.address, 99n)).rejects.toThrow(
      /MintOnlyThroughStages/,
    );
  });
});
