/** Execution: buy a listing (the snipe path), accept an offer, swap, mint — each one a write-ahead intent. */
export { createExecutor, isUnresolved } from './executor.ts';
export {
  type CancelInput,
  type CancelOutcome,
  createOrderDesk,
  type OfferTarget,
  type OrderDesk,
  type OrderDeskApi,
  type OrderDeskOptions,
  type PlacedOffer,
  type PlaceOfferInput,
} from './orders.ts';
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
