export * from './chains.ts';
export * from './events.ts';
export * from './ids.ts';
export * from './money.ts';
export * from './secret.ts';
