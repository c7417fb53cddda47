export * from './holdings.ts';
export * from './ledger.ts';
export * from './offer.ts';
export * from './store.ts';
export * from './types.ts';
