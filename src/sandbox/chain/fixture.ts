import {
  type Contract,
  getAddress,
  HDNodeWallet,
  JsonRpcProvider,
  Mnemonic,
  NonceManager,
  Wallet,
} from 'ethers';
import { COLLECTION_SPECS, type CollectionSpec, DROP_SPECS, type DropSpec } from '../catalog/catalog.ts';
import { type AnvilHandle, type AnvilOptions, DEFAULT_MNEMONIC, startAnvil } from './anvil.ts';
import type { CompileOptions } from './compile.ts';
import { deployContract, loadProjectArtifacts, type ProjectArtifacts } from './contracts.ts';
import { type DropDeployment, deployDrop } from './drops.ts';
import { deploySeaport, type SeaportDeployment } from './seaport.ts';
import { deployUniswap, type UniswapDeployment } from './uniswap.ts';

export interface CollectionDeployment extends CollectionSpec {
  readonly address: string;
  readonly contract: Contract;
}

export interface ChainFixture {
  readonly anvil: AnvilHandle;
  readonly provider: JsonRpcProvider;
  readonly chainId: number;
  readonly seaport: SeaportDeployment;
  readonly weth: Contract;
  readonly zone: Contract;
  /** Signs zone authorizations; the sandbox's off-chain key. Never handed to clients. */
  readonly zoneSigner: Wallet;
  readonly collections: readonly CollectionDeployment[];
  /** The deployer: owner of the collections, the zone and the conduit. */
  readonly admin: NonceManager;
  /** Funded dev accounts (index 1..n of the mnemonic) for clients and simulated traders. */
  readonly wallets: readonly Wallet[];
  readonly artifacts: ProjectArtifacts;
  /** The swap venue (Uniswap v2 with seeded token/WETH pairs), unless disabled. */
  readonly uniswap: UniswapDeployment | undefined;
  readonly drops: readonly DropDeployment[];
  stop(): Promise<void>;
}

export interface ChainFixtureOptions extends CompileOptions {
  readonly chainId?: number;
  readonly anvil?: Omit<AnvilOptions, 'chainId'>;
  /** Base URL under which the sandbox serves token metadata: `<base>/<slug>/<tokenId>`. */
  readonly metadataBaseUrl?: string;
  /** Funded wallets to hand out (besides the admin). Default 10. */
  readonly wallets?: number;
  readonly mnemonic?: string;
  /** Collections to deploy; default the catalog's. */
  readonly collections?: readonly CollectionSpec[];
  /**
   * Mint each collection's supply to the wallets, round-robin (ERC1155: `erc1155Units` of every id
   * to every wallet). Default true.
   */
  readonly mint?: boolean;
  readonly erc1155Units?: number;
  /** Deploy the swap venue; default true. */
  readonly swap?: boolean;
  /** Drops to deploy; default the catalog's (one active, not started, ended, paused). */
  readonly drops?: readonly DropSpec[];
}

/** How long `stop()` lets in-flight JSON-RPC requests finish before destroying the provider. */
const DRAIN_MS = 150;

/**
 * Starts anvil and deploys everything the sandbox settles on: Seaport 1.6 with a conduit, WETH,
 * the signed zone, and the test collections (metadata served by the sandbox).
 */
export async function startChainFixture(options: ChainFixtureOptions = {}): Promise<ChainFixture> {
  const chainId = options.chainId ?? 1;
  const mnemonic = options.mnemonic ?? DEFAULT_MNEMONIC;
  const walletCount = options.wallets ?? 10;
  const anvil = await startAnvil({ ...options.anvil, chainId, mnemonic, accounts: walletCount + 2 });
  // Batch without waiting: by default ethers holds every call 10 ms to batch it, and the market's hot path
  // (fulfillment data) makes its chain reads one after another.
  const provider = new JsonRpcProvider(anvil.rpcUrl, chainId, {
    staticNetwork: true,
    cacheTimeout: -1,
    batchStallTime: 0,
    // A local chain mines at once: poll for receipts every 50 ms, not ethers' default 4 s.
    pollingInterval: 50,
  });
  try {
    const phrase = Mnemonic.fromPhrase(mnemonic);
    const derive = (i: number) =>
      new Wallet(HDNodeWallet.fromMnemonic(phrase, `m/44'/60'/0'/0/${i}`).privateKey, provider);
    const admin = new NonceManager(derive(0));
    const wallets = Array.from({ length: walletCount }, (_, i) => derive(i + 1));
    const zoneSigner = derive(walletCount + 1);

    const compileOpts: CompileOptions = {
      ...(options.cacheDir !== undefined ? { cacheDir: options.cacheDir } : {}),
      ...(options.onProgress !== undefined ? { onProgress: options.onProgress } : {}),
    };
    const artifacts = await loadProjectArtifacts(compileOpts);
    const seaport = await deploySeaport(admin, compileOpts);
    const weth = await deployContract(artifacts, 'WETH9', admin);
    const zone = await deployContract(artifacts, 'SandboxSignedZone', admin, [zoneSigner.address]);
    const base = (options.metadataBaseUrl ?? 'http://127.0.0.1/metadata').replace(/\/$/, '');
    const collections: CollectionDeployment[] = [];
    for (const c of options.collections ?? COLLECTION_SPECS) {
      const contract =
        c.standard === 'erc721'
          ? await deployContract(artifacts, 'TraitERC721', admin, [c.name, c.symbol, `${base}/${c.slug}/`])
          : await deployContract(artifacts, 'TestERC1155', admin, [c.name, `${base}/${c.slug}/`]);
      collections.push({ ...c, address: getAddress(await contract.getAddress()), contract });
    }
    const uniswap =
      (options.swap ?? true) ? await deployUniswap(admin, artifacts, await weth.getAddress()) : undefined;
    const chainNow = (await provider.getBlock('latest'))?.timestamp ?? Math.floor(Date.now() / 1000);
    const drops: DropDeployment[] = [];
    for (const d of options.drops ?? DROP_SPECS) {
      const allowlist = wallets.slice(0, d.allowlistWallets).map((w) => w.address);
      drops.push(await deployDrop(admin, artifacts, d, chainNow, allowlist, base));
    }
    if ((options.mint ?? true) && wallets.length > 0) {
      await mintInventory(collections, wallets, options.erc1155Units ?? 10);
    }
    return {
      anvil,
      provider,
      chainId,
      seaport,
      weth,
      zone,
      zoneSigner,
      collections,
      admin,
      wallets,
      artifacts,
      uniswap,
      drops,
      async stop() {
        // Let in-flight requests drain first. ethers' waitForTransaction awaits a last
        // getBlockNumber inside an async Promise executor even after the receipt resolved `wait()`;
        // destroying the provider under it rejects that request with nobody to catch it, and the
        // process dies of an unhandled rejection.
        await new Promise((r) => setTimeout(r, DRAIN_MS));
        provider.destroy();
        await anvil.stop();
      },
    };
  } catch (e) {
    provider.destroy();
    await anvil.stop();
    throw e;
  }
}

/**
 * Mints every collection's supply: ERC721 ids 1..supply round-robin, ERC1155 units of each id to all.
 * Sends one after another (each send waits for its RPC answer, not its receipt): a nonce manager fed
 * many concurrent sends hands out nonces before they are sent, and one send that fails on the way
 * leaves a gap that stalls every later transaction forever (seen as a start that never finishes).
 */
async function mintInventory(
  collections: readonly CollectionDeployment[],
  wallets: readonly Wallet[],
  erc1155Units: number,
): Promise<void> {
  const sent: { wait(): Promise<unknown> }[] = [];
  for (const c of collections) {
    const mint = c.contract.getFunction('mint');
    for (let id = 1; id <= c.supply; id++) {
      if (c.standard === 'erc721') {
        const to = (wallets[(id - 1) % wallets.length] as Wallet).address;
        sent.push(await mint(to, BigInt(id)));
      } else {
        for (const w of wallets) sent.push(await mint(w.address, BigInt(id), BigInt(erc1155Units)));
      }
    }
  }
  await Promise.all(sent.map((tx) => tx.wait()));
}
