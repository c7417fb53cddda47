export * from './faults.ts';
export * from './protocol.ts';
export * from './render.ts';
export * from './server.ts';
