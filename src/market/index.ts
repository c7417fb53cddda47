/** Public surface of the market view. */
export type { MarketApi } from './api.ts';
export {
  type BudgetPlan,
  DEFAULT_REFRESH_INTERVALS,
  planRefresh,
  REFRESH_KINDS,
  type RefreshIntervals,
  type RefreshKind,
} from './budget.ts';
export { FrozenMap } from './frozen.ts';
export { createNftTraits, type NftTraits, type NftTraitsOptions, type Traits } from './nft-traits.ts';
export * from './snapshot.ts';
export { displayToUnits, unitsToDisplay } from './units.ts';
export {
  type CollectionStatus,
  createMarketView,
  type KindStatus,
  type MarketClock,
  type MarketView,
  type MarketViewOptions,
  type MarketViewStatus,
  type OwnOrderSource,
  type StreamStatus,
} from './view.ts';
