import { createRequire } from 'node:module';
import { Contract, ContractFactory, getAddress, parseEther, parseUnits, type Signer } from 'ethers';
import { deployContract, type ProjectArtifacts } from './contracts.ts';

const require = createRequire(import.meta.url);

interface Artifact {
  readonly abi: unknown[];
  readonly bytecode: string;
}

function artifact(path: string): Artifact {
  const a = require(path) as { abi: unknown[]; bytecode: string };
  return { abi: a.abi, bytecode: a.bytecode.startsWith('0x') ? a.bytecode : `0x${a.bytecode}` };
}

/** Uniswap v2 build artifacts shipped in the npm packages (no compilation). */
export const UNISWAP_ARTIFACTS = {
  factory: () => artifact('@uniswap/v2-core/build/UniswapV2Factory.json'),
  pair: () => artifact('@uniswap/v2-core/build/UniswapV2Pair.json'),
  router: () => artifact('@uniswap/v2-periphery/build/UniswapV2Router02.json'),
};

export interface SwapToken {
  readonly symbol: string;
  readonly name: string;
  readonly decimals: number;
  readonly address: string;
  readonly contract: Contract;
}

export interface UniswapDeployment {
  readonly factory: string;
  readonly router: string;
  readonly routerAbi: readonly unknown[];
  readonly pairAbi: readonly unknown[];
  readonly tokens: readonly SwapToken[];
  /** Pair address per token symbol (each token is paired with WETH). */
  readonly pairs: Readonly<Record<string, string>>;
}

export interface SwapTokenSpec {
  readonly symbol: string;
  readonly name: string;
  readonly decimals: number;
  /** Liquidity seeded against WETH: token units per 1 ETH, and how many ETH. */
  readonly perEth: string;
  readonly liquidityEth: string;
}

export const SWAP_TOKEN_SPECS: readonly SwapTokenSpec[] = Object.freeze([
  { symbol: 'USDC', name: 'USD Coin (sandbox)', decimals: 6, perEth: '3000', liquidityEth: '500' },
  { symbol: 'HRP', name: 'Harpoon Token (sandbox)', decimals: 18, perEth: '10000', liquidityEth: '200' },
]);

/**
 * Deploys a Uniswap v2 factory and router (the npm build artifacts) against our WETH, two ERC20
 * test tokens, and seeds each token/WETH pair with liquidity, so swap quotes can really settle.
 */
export async function deployUniswap(
  admin: Signer,
  artifacts: ProjectArtifacts,
  weth: string,
  specs: readonly SwapTokenSpec[] = SWAP_TOKEN_SPECS,
): Promise<UniswapDeployment> {
  const adminAddress = await admin.getAddress();
  const f = UNISWAP_ARTIFACTS.factory();
  const factory = await new ContractFactory(f.abi as never[], f.bytecode, admin).deploy(adminAddress);
  await factory.waitForDeployment();
  const r = UNISWAP_ARTIFACTS.router();
  const router = await new ContractFactory(r.abi as never[], r.bytecode, admin).deploy(
    await factory.getAddress(),
    weth,
  );
  await router.waitForDeployment();
  const routerAddress = getAddress(await router.getAddress());
  const routerC = new Contract(routerAddress, r.abi as never[], admin);

  const tokens: SwapToken[] = [];
  const pairs: Record<string, string> = {};
  for (const spec of specs) {
    const token = await deployContract(artifacts, 'TestERC20', admin, [
      spec.name,
      spec.symbol,
      spec.decimals,
    ]);
    const address = getAddress(await token.getAddress());
    const ethAmount = parseEther(spec.liquidityEth);
    const tokenAmount = parseUnits(spec.perEth, spec.decimals) * BigInt(spec.liquidityEth);
    await (await token.getFunction('mint')(adminAddress, tokenAmount * 2n)).wait();
    await (await token.getFunction('approve')(routerAddress, tokenAmount)).wait();
    await (
      await routerC.getFunction('addLiquidityETH')(
        address,
        tokenAmount,
        tokenAmount,
        ethAmount,
        adminAddress,
        2n ** 40n,
        {
          value: ethAmount,
        },
      )
    ).wait();
    pairs[spec.symbol] = getAddress(await factory.getFunction('getPair')(address, weth));
    tokens.push({ symbol: spec.symbol, name: spec.name, decimals: spec.decimals, address, contract: token });
  }
  return {
    factory: getAddress(await factory.getAddress()),
    router: routerAddress,
    routerAbi: r.abi,
    pairAbi: UNISWAP_ARTIFACTS.pair().abi,
    tokens,
    pairs,
  };
}
