// The swap router's on-chain quote (Uniswap-v2 `getAmountsOut`): what the daemon expects from a
// swap, and what the token prices view values tokens at. Native ETH is routed as WETH.
import { Interface } from 'ethers';
import type { ChainRpc } from '../chain/index.ts';
import { ZERO_ADDRESS } from '../domain/ids.ts';

const ROUTER = new Interface([
  'function getAmountsOut(uint256 amountIn, address[] path) view returns (uint256[] amounts)',
]);

/** What `amountIn` of `from` buys of `to` through `router` now (a direct pair; throws when none). */
export async function routerAmountOut(
  o: { readonly rpc: Pick<ChainRpc, 'call'>; readonly router: string; readonly weth: string },
  from: string,
  to: string,
  amountIn: bigint,
): Promise<bigint> {
  const path = [from, to].map((a) => (a.toLowerCase() === ZERO_ADDRESS ? o.weth : a));
  const raw = await o.rpc.call({
    to: o.router,
    data: ROUTER.encodeFunctionData('getAmountsOut', [amountIn, path]),
  });
  const [amounts] = ROUTER.decodeFunctionResult('getAmountsOut', raw) as unknown as [bigint[]];
  const out = amounts[amounts.length - 1];
  if (out === undefined) throw new Error('the router quoted no amounts');
  return out;
}
