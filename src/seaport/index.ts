/** Seaport 1.6 orders built, hashed and signed locally; cancels and approvals as unsigned txs. */
export * from './approvals.ts';
export * from './bodies.ts';
export * from './cancel.ts';
export * from './constants.ts';
export * from './fees.ts';
export * from './hash.ts';
export * from './orders.ts';
export * from './reader.ts';
export * from './signer.ts';
export * from './types.ts';
export * from './wire.ts';
