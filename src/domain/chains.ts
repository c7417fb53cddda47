/**
 * Chain names as the API spells them (slug = identifier), with their EVM chain ids.
 * Non-EVM chains have no id.
 */
export const CHAIN_IDS = {
  ethereum: 1,
  optimism: 10,
  unichain: 130,
  polygon: 137,
  monad: 143,
  shape: 360,
  flow: 747,
  stablechain: 988,
  hyperevm: 999,
  sei: 1329,
  soneium: 1868,
  ronin: 2020,
  abstract: 2741,
  megaeth: 4326,
  robinhood: 4663,
  somnia: 5031,
  b3: 8333,
  base: 8453,
  ape_chain: 33139,
  arbitrum: 42161,
  avalanche: 43114,
  gunzilla: 43419,
  ink: 57073,
  animechain: 69000,
  bera_chain: 80094,
  blast: 81457,
  zora: 7777777,
} as const;

export type EvmChainName = keyof typeof CHAIN_IDS;
export const NON_EVM_CHAINS = ['solana', 'hyperliquid', 'arc'] as const;
export type ChainName = EvmChainName | (typeof NON_EVM_CHAINS)[number];

export const CHAIN_NAMES: readonly ChainName[] = Object.freeze([
  ...(Object.keys(CHAIN_IDS) as EvmChainName[]),
  ...NON_EVM_CHAINS,
]);

export function isChainName(value: unknown): value is ChainName {
  return typeof value === 'string' && (CHAIN_NAMES as readonly string[]).includes(value);
}

export function isEvmChain(value: ChainName): value is EvmChainName {
  return Object.hasOwn(CHAIN_IDS, value);
}

export function chainIdOf(chain: ChainName): number | undefined {
  return isEvmChain(chain) ? CHAIN_IDS[chain] : undefined;
}

export function chainNameOf(chainId: number): EvmChainName | undefined {
  for (const [name, id] of Object.entries(CHAIN_IDS)) if (id === chainId) return name as EvmChainName;
  return undefined;
}
