/**
 * Calldata guard: decode every API-built transaction with known ABIs, check it against the
 * locally computed intent, simulate it; refuse (GuardRejectedError) on any mismatch.
 */
export {
  type AbiFamily,
  DANGER_ABI,
  DROP_ABI,
  functionBySelector,
  functionBySignature,
  type KnownFunction,
  ROUTER_ABI,
  SEAPORT_ABI,
  SELECTORS,
  WETH_ABI,
} from './abis.ts';
export { type DecodedCall, decodeStrict, lookupFunction } from './calldata.ts';
export { type CalldataGuard, type CalldataGuardOptions, createCalldataGuard } from './guard.ts';
export { GUARD_REASONS, type GuardReason, GuardRejectedError, isGuardRejection } from './reasons.ts';
export { fulfillmentProposal, mintProposal, parseChain, swapQuoteProposals } from './responses.ts';
export {
  checkAcceptOffer,
  checkBuyListing,
  fillOrderHash,
  type SeaportFill,
  seaportFill,
} from './seaport.ts';
export { checkMint, checkRouterSwap, checkSwapApproval, checkWrap } from './swap.ts';
export type {
  AcceptOfferIntent,
  BuyListingIntent,
  GuardedTx,
  Intent,
  IntentKind,
  MintIntent,
  NftRef,
  ProposedTx,
  SimulateFn,
  SimulationCall,
  StepKind,
  SwapIntent,
} from './types.ts';

import type { SimulateFn } from './types.ts';

/** A `SimulateFn` over anything with an ethers-style `call` (a `JsonRpcProvider`). */
export function simulateWith(provider: {
  call(tx: { from: string; to: string; data: string; value: bigint }): Promise<string>;
}): SimulateFn {
  return ({ from, to, data, value }) => provider.call({ from, to, data, value });
}
