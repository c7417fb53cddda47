/** Execution: buy a listing (the snipe path), accept an offer, swap, mint — each one a write-ahead intent. */
export { type CollectionInfoCache, createCollectionInfoCache } from './collections.ts';
export { createExecutor, isUnresolved } from './executor.ts';
export { createLiveExecutor, type LiveExecutor, type LiveExecutorOptions } from './live.ts';
export {
  type CancelOptions,
  type CancelResult,
  type CollectionInfo,
  createOrderDesk,
  type OrderDesk,
  type OrderDeskApi,
  type OrderDeskOptions,
  type PlaceInput,
} from './orders.ts';
export { type OrphanReport, type OrphanSweepOptions, offerTokenOf, sweepOrphans } from './orphans.ts';
export {
  type CollectionFeeInfo,
  createPaperExecutor,
  PAPER_GAS_UNITS,
  type PaperExecutor,
  type PaperExecutorOptions,
  type PaperFill,
  type PaperOrder,
  type PaperReport,
  renderPaperReport,
} from './paper.ts';
export {
  createPaperWallet,
  fillDeltas,
  PaperBalancesError,
  type PaperWallet,
  resolvePaperBalances,
} from './paper-wallet.ts';
export { createExecutionReconciler, type ExecutionReconcilerOptions } from './reconcile.ts';
export { createFastTxSigner } from './tx-signer.ts';
export {
  type AcceptOfferInput,
  type BuyListingInput,
  EXECUTION_KINDS,
  type ExecutionApi,
  type ExecutionKind,
  type ExecutionOutcome,
  type ExecutionReconcileReport,
  type ExecutionStep,
  type Executor,
  type ExecutorOptions,
  type MintInput,
  type NftInput,
  type OrderStatusReader,
  type SwapInput,
} from './types.ts';
