import { JsonRpcProvider, NonceManager, parseEther, Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnvilHandle, DEFAULT_MNEMONIC, startAnvil } from '../../../src/sandbox/chain/anvil.ts';
import {
  deployContract,
  loadProjectArtifacts,
  type ProjectArtifacts,
} from '../../../src/sandbox/chain/contracts.ts';

describe('the sandbox project contracts on anvil', () => {
  let anvil: AnvilHandle;
  let provider: JsonRpcProvider;
  let artifacts: ProjectArtifacts;
  let deployer: NonceManager;
  let other: Wallet;

  beforeAll(async () => {
    anvil = await startAnvil({ chainId: 1 });
    provider = new JsonRpcProvider(anvil.rpcUrl, 1, { staticNetwork: true });
    deployer = new NonceManager(Wallet.fromPhrase(DEFAULT_MNEMONIC, provider));
    other = new Wallet(Wallet.createRandom().privateKey, provider);
    artifacts = await loadProjectArtifacts();
  }, 120_000);

  afterAll(async () => {
    provider?.destroy();
    await anvil?.stop();
  });

  it('WETH wraps ether 1:1 and moves it with allowances', async () => {
    const weth = await deployContract(artifacts, 'WETH9', deployer);
    await (await weth.getFunction('deposit')({ value: parseEther('2') })).wait();
    const me = await deployer.getAddress();
    expect(await weth.getFunction('balanceOf')(me)).toBe(parseEther('2'));
    await (await weth.getFunction('transfer')(other.address, parseEther('0.5'))).wait();
    expect(await weth.getFunction('balanceOf')(other.address)).toBe(parseEther('0.5'));
    // staticCall: a reverted send would still advance NonceManager's nonce and stall later transactions.
    await expect(weth.getFunction('transferFrom').staticCall(other.address, me, 1n)).rejects.toThrow(
      /allowance/,
    );
  });

  it('TraitERC721 mints, serves tokenURI from the sandbox base URI, and enforces approvals', async () => {
    const nft = await deployContract(artifacts, 'TraitERC721', deployer, [
      'Harpoon Apes',
      'HAPE',
      'http://x/meta/hape/',
    ]);
    const me = await deployer.getAddress();
    await (await nft.getFunction('mint')(me, 7n)).wait();
    expect(await nft.getFunction('ownerOf')(7n)).toBe(me);
    expect(await nft.getFunction('tokenURI')(7n)).toBe('http://x/meta/hape/7');
    const asOther = nft.connect(other) as typeof nft;
    await expect(asOther.getFunction('transferFrom').staticCall(me, other.address, 7n)).rejects.toThrow(
      /not approved/,
    );
    await (await nft.getFunction('transferFrom')(me, other.address, 7n)).wait();
    expect(await nft.getFunction('ownerOf')(7n)).toBe(other.address);
  });

  it('TestERC1155 mints balances and checks operators', async () => {
    const sft = await deployContract(artifacts, 'TestERC1155', deployer, [
      'Harpoon Items',
      'http://x/meta/items/',
    ]);
    const me = await deployer.getAddress();
    await (await sft.getFunction('mint')(me, 1n, 10n)).wait();
    expect(await sft.getFunction('balanceOf')(me, 1n)).toBe(10n);
    await (await sft.getFunction('safeTransferFrom')(me, other.address, 1n, 3n, '0x')).wait();
    expect(await sft.getFunction('balanceOf')(other.address, 1n)).toBe(3n);
  });
});
