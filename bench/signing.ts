/**
 * Order signing throughput on one core: trait offers across many traits of one collection, built
 * from build-offer responses ('0' criteria), fees added, hashed and signed.
 *
 *   npm run bench -- signing            # 3 s per contender
 *   npm run bench -- signing --quick    # smoke run (or BENCH_QUICK=1): 0.3 s per contender
 *   npm run bench -- signing --traits 500
 *
 * Contenders, each signing the same kind of orders:
 *   offersPerS                 src/seaport: signCriteriaOffer (build checks, fees, hash, secp256k1)
 *   seaportJsOffersPerS        @opensea/seaport-js Seaport.signOrder (ethers Wallet typed data)
 *   ethersTypedDataOffersPerS  ethers Wallet.signTypedData over the same OrderComponents
 *   secp256k1OnlyPerS          noble secp256k1.sign of a 32-byte digest (after the signer's precompute)
 *
 * Rates are per CPU-second of this single-threaded process (the machine may be shared).
 *
 * Prints progress lines, then one JSON object as the last line.
 */
import { parseArgs } from 'node:util';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import type { BuildOfferResponse } from '@opensea/api-types';
import { Seaport } from '@opensea/seaport-js';
import { JsonRpcProvider, Network, Wallet } from 'ethers';
import { seaportOrderTypes } from '../src/domain/seaport.ts';
import { createSeaportOrders, type SeaportOptions } from '../src/seaport/orders.ts';
import { createLocalDigestSigner } from '../src/seaport/signer.ts';
import { toWire } from '../src/seaport/wire.ts';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    traits: { type: 'string', default: '300' },
    seconds: { type: 'string' },
  },
  allowPositionals: true,
});
const quick = values.quick === true || process.env['BENCH_QUICK'] === '1';
const seconds = Number(values.seconds ?? (quick ? 0.3 : 3));
const traitCount = Math.max(1, Number(values.traits));

// A throwaway key made for this run (never a real wallet).
const key = secp256k1.utils.randomSecretKey();
const keyHex = `0x${Buffer.from(key).toString('hex')}`;
const t = performance.now();
const signer = createLocalDigestSigner(key); // builds noble's base-point table once (window 10)
const setupMs = Math.round(performance.now() - t);
const SEAPORT = '0x0000000000000068F116a894984e2DB1123eB395';
const options: SeaportOptions = {
  chainId: 1,
  protocolAddress: SEAPORT,
  conduitKey: '0x0000007b02230091a7ed01230072f7006a004d60a8d4e71d599b8104250f0000',
  signedZone: '0x000056F7000000EcE9003ca63978907a00FFD100',
  offerToken: '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2',
  offerExpirySec: 3600,
};
const NFT = '0xBC4CA0EdA7647A8aB7C2061c2E118A18a936f13D';
const fees = Object.freeze([
  Object.freeze({ fee: 1, recipient: '0x0000a26b00c1F0DF003000390027140000fAa719', required: true }),
  Object.freeze({ fee: 2.5, recipient: '0x00000000000000000000000000000000c0ffee01', required: true }),
]);

// One build response per trait, as POST /api/v2/offers/build returns them ('0' criteria).
const builds: BuildOfferResponse[] = Array.from({ length: traitCount }, (_, i) => ({
  partialParameters: {
    consideration: [
      {
        itemType: 4,
        token: NFT,
        identifierOrCriteria: '0',
        startAmount: '1',
        endAmount: '1',
        recipient: signer.address,
      },
    ],
    zone: options.signedZone,
    zoneHash: `0x${'00'.repeat(32)}`,
  },
  criteria: { collection: { slug: 'apes' }, traits: [{ type: `type${i % 12}`, value: `value${i}` }] },
}));
// Prices vary per trait (a real bidder bids each trait's floor): 1.000..1.0xx ETH.
const priceOf = (i: number) => 10n ** 18n + BigInt(i % 50) * 10n ** 15n;

const orders = createSeaportOrders(options, {
  signer,
  counters: { getCounter: async () => 0n },
  clock: { nowSec: () => BigInt(Math.floor(Date.now() / 1000)) },
});

/**
 * Runs `step` for `seconds` of wall time; the rate is per CPU-second of this process (one core:
 * the loop is single-threaded), so other load on a shared machine does not count against it.
 */
async function measure(name: string, step: (i: number) => unknown | Promise<unknown>, isAsync: boolean) {
  const warm = Math.min(50, traitCount);
  for (let i = 0; i < warm; i++) await step(i);
  const deadline = performance.now() + seconds * 1000;
  let n = 0;
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  if (isAsync) {
    while (performance.now() < deadline) {
      await step(n % traitCount);
      n++;
    }
  } else {
    while (performance.now() < deadline) {
      for (let k = 0; k < 20; k++) step((n + k) % traitCount);
      n += 20;
    }
  }
  const cpu = process.cpuUsage(c0);
  const wallMs = performance.now() - t0;
  const perS = Math.round((n * 1e6) / (cpu.user + cpu.system));
  const perWallS = Math.round((n * 1000) / wallMs);
  process.stdout.write(
    `${name}: ${perS}/cpu-s, ${perWallS}/wall-s (${n} in ${(wallMs / 1000).toFixed(1)} s)\n`,
  );
  return perS;
}

process.stdout.write(`signing trait offers across ${traitCount} traits, ${seconds} s per contender\n`);
const ctx = await orders.prepare();
const offersPerS = await measure(
  'src/seaport signCriteriaOffer',
  (i) => orders.signCriteriaOffer({ build: builds[i] as BuildOfferResponse, price: priceOf(i), fees }, ctx),
  false,
);

// The same orders for the generic signers (their cost is the typed-data signing, not the building).
const samples = Array.from({ length: traitCount }, (_, i) =>
  toWire(
    orders.signCriteriaOffer({ build: builds[i] as BuildOfferResponse, price: priceOf(i), fees }, ctx)
      .components,
  ),
);
const provider = new JsonRpcProvider('http://127.0.0.1:9', Network.from(1), { staticNetwork: true });
const wallet = new Wallet(keyHex, provider);
const seaportJs = new Seaport(wallet as unknown as ConstructorParameters<typeof Seaport>[0], {
  overrides: { contractAddress: SEAPORT },
});
const seaportJsOffersPerS = await measure(
  '@opensea/seaport-js signOrder',
  (i) => seaportJs.signOrder(samples[i] as never),
  true,
);
const domain = { name: 'Seaport', version: '1.6', chainId: 1, verifyingContract: SEAPORT };
const types = seaportOrderTypes();
const ethersTypedDataOffersPerS = await measure(
  'ethers Wallet.signTypedData',
  (i) => wallet.signTypedData(domain, types, samples[i] as never),
  true,
);
const digest = new Uint8Array(32).fill(7);
const secp256k1OnlyPerS = await measure(
  'noble secp256k1.sign (digest only)',
  (i) => {
    digest[0] = i & 255;
    return secp256k1.sign(digest, key, { prehash: false, format: 'recovered' });
  },
  false,
);
await provider.destroy();

process.stdout.write(
  `${JSON.stringify({
    offersPerS,
    seaportJsOffersPerS,
    ethersTypedDataOffersPerS,
    secp256k1OnlyPerS,
    signerSetupMs: setupMs,
    rate: 'per CPU-second of one core',
    traits: traitCount,
    seconds,
    goalOffersPerS: 2000,
  })}\n`,
);
