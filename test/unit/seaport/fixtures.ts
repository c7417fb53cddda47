/** Shared fixtures of the seaport unit tests: a fixed key, a fixed clock, a counter fake, a deterministic rng. */
import type { BuildOfferResponse } from '@opensea/api-types';
import type { SeaportOptions } from '../../../src/seaport/orders.ts';
import { createLocalDigestSigner } from '../../../src/seaport/signer.ts';

// anvil's well-known first dev key (public test key, never funded outside a local chain)
export const PRIVATE_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
export const ADDRESS = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
export const SEAPORT = '0x0000000000000068F116a894984e2DB1123eB395';
export const CONDUIT_KEY = '0x0000007b02230091a7ed01230072f7006a004d60a8d4e71d599b8104250f0000';
export const ZONE = '0x000056F7000000EcE9003ca63978907a00FFD100';
export const WETH = '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2';
export const NFT = '0xBC4CA0EdA7647A8aB7C2061c2E118A18a936f13D';
export const FEE_RECIPIENT = '0x0000a26b00c1F0DF003000390027140000fAa719';
export const CREATOR = '0x00000000000000000000000000000000c0ffee01';
export const NOW = 1_700_000_000n;

export const FEES = Object.freeze([
  Object.freeze({ fee: 1, recipient: FEE_RECIPIENT, required: true }),
  Object.freeze({ fee: 2.5, recipient: CREATOR, required: true }),
]);

export const OPTIONS: SeaportOptions = {
  chainId: 1,
  protocolAddress: SEAPORT,
  conduitKey: CONDUIT_KEY,
  signedZone: ZONE,
  offerToken: WETH,
  offerExpirySec: 3600,
  listingExpirySec: 86_400,
};

/** Deterministic bytes: a counter-seeded pattern (tests need reproducible salts). */
export function seededRandom(seed = 1): (n: number) => Uint8Array {
  let s = seed;
  return (n) => {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      s = (s * 1103515245 + 12345) >>> 0;
      out[i] = s >>> 24;
    }
    return out;
  };
}

export function deps(overrides: { counter?: bigint; now?: bigint } = {}) {
  const counterCalls: string[] = [];
  return {
    counterCalls,
    deps: {
      signer: createLocalDigestSigner(PRIVATE_KEY),
      counters: {
        async getCounter(offerer: string) {
          counterCalls.push(offerer);
          return overrides.counter ?? 7n;
        },
      },
      clock: { nowSec: () => overrides.now ?? NOW },
      randomBytes: seededRandom(),
    },
  };
}

export function buildResponse(
  overrides: Partial<BuildOfferResponse['partialParameters']> = {},
): BuildOfferResponse {
  return {
    partialParameters: {
      consideration: [
        {
          itemType: 4,
          token: NFT,
          identifierOrCriteria: '0',
          startAmount: '1',
          endAmount: '1',
          recipient: ADDRESS,
        },
      ],
      zone: ZONE,
      zoneHash: `0x${'00'.repeat(32)}`,
      ...overrides,
    },
    criteria: { collection: { slug: 'apes' }, traits: [{ type: 'Fur', value: 'Gold' }] },
    encodedTokenIds: '*',
  };
}
