import { getAddress, Interface, ZeroAddress, ZeroHash } from 'ethers';
import {
  type CalldataGuardOptions,
  createCalldataGuard,
  DANGER_ABI,
  DROP_ABI,
  type GuardReason,
  GuardRejectedError,
  ROUTER_ABI,
  SEAPORT_ABI,
  WETH_ABI,
} from '../../../../src/chain/guard/index.ts';
import type { ProposedTx } from '../../../../src/chain/guard/types.ts';

export const seaportI = new Interface(SEAPORT_ABI as unknown as string[]);
export const routerI = new Interface(ROUTER_ABI as unknown as string[]);
export const wethI = new Interface(WETH_ABI as unknown as string[]);
export const dropI = new Interface(DROP_ABI as unknown as string[]);
export const dangerI = new Interface(DANGER_ABI as unknown as string[]);

const a = (n: number) => getAddress(`0x${n.toString(16).padStart(40, '0')}`);
export const CHAIN = 1;
export const SEAPORT = getAddress('0x0000000000000068F116a894984e2DB1123eB395');
export const CONDUIT = a(0xc0d);
export const CONDUIT_KEY = `0x${'7b'.repeat(32)}`;
export const ME = a(0x1111);
export const SELLER = a(0x5e11);
export const FEE = getAddress('0x0000a26b00c1f0df003000390027140000faa719');
export const CREATOR = a(0xc4ea);
export const ATTACKER = a(0xbad);
export const NFT = a(0xa11ce);
export const WETH = a(0x3e7);
export const USDC = a(0x05dc);
export const ROUTER = a(0x4047e4);
export const DROP = a(0xd40);
export const ETH = 10n ** 18n;
export const COUNTER = 0n;

export const options = (over: Partial<CalldataGuardOptions> = {}): CalldataGuardOptions => ({
  chainId: CHAIN,
  wallets: [ME],
  seaport: [SEAPORT],
  conduitKeys: [ZeroHash, CONDUIT_KEY],
  feeRecipients: [FEE],
  routers: [ROUTER],
  weth: WETH,
  drops: [DROP],
  call: async () => '0x',
  ...over,
});

export const newGuard = (over: Partial<CalldataGuardOptions> = {}) => createCalldataGuard(options(over));

/** Listing parameters: 1 ETH to the seller (minus fees), 1 % marketplace fee, 5 % creator fee. */
export function listingParams(over: Record<string, unknown> = {}) {
  return {
    offerer: SELLER,
    zone: ZeroAddress,
    offer: [{ itemType: 2, token: NFT, identifierOrCriteria: 7n, startAmount: 1n, endAmount: 1n }],
    consideration: [
      {
        itemType: 0,
        token: ZeroAddress,
        identifierOrCriteria: 0n,
        startAmount: 94n * 10n ** 16n,
        endAmount: 94n * 10n ** 16n,
        recipient: SELLER,
      },
      {
        itemType: 0,
        token: ZeroAddress,
        identifierOrCriteria: 0n,
        startAmount: 10n ** 16n,
        endAmount: 10n ** 16n,
        recipient: FEE,
      },
      {
        itemType: 0,
        token: ZeroAddress,
        identifierOrCriteria: 0n,
        startAmount: 5n * 10n ** 16n,
        endAmount: 5n * 10n ** 16n,
        recipient: CREATOR,
      },
    ],
    orderType: 1,
    startTime: 1000n,
    endTime: 99999999999n,
    zoneHash: ZeroHash,
    salt: 12345n,
    conduitKey: CONDUIT_KEY,
    totalOriginalConsiderationItems: 3n,
    ...over,
  };
}

export function advancedListing(
  params = listingParams(),
  over: {
    numerator?: bigint;
    denominator?: bigint;
    resolvers?: unknown[];
    conduitKey?: string;
    recipient?: string;
  } = {},
): string {
  return seaportI.encodeFunctionData('fulfillAdvancedOrder', [
    {
      parameters: params,
      numerator: over.numerator ?? 1n,
      denominator: over.denominator ?? 1n,
      signature: '0x1234',
      extraData: '0x',
    },
    over.resolvers ?? [],
    over.conduitKey ?? ZeroHash,
    over.recipient ?? ME,
  ]);
}

export function basicListing(
  over: Record<string, unknown> = {},
  fn = 'fulfillBasicOrder_efficient_6GL6yc',
): string {
  return seaportI.encodeFunctionData(fn, [
    {
      considerationToken: ZeroAddress,
      considerationIdentifier: 0n,
      considerationAmount: 94n * 10n ** 16n,
      offerer: SELLER,
      zone: ZeroAddress,
      offerToken: NFT,
      offerIdentifier: 7n,
      offerAmount: 1n,
      basicOrderType: 1, // ETH_TO_ERC721, PARTIAL_OPEN
      startTime: 1000n,
      endTime: 99999999999n,
      zoneHash: ZeroHash,
      salt: 12345n,
      offererConduitKey: CONDUIT_KEY,
      fulfillerConduitKey: ZeroHash,
      totalOriginalAdditionalRecipients: 2n,
      additionalRecipients: [
        { amount: 10n ** 16n, recipient: FEE },
        { amount: 5n * 10n ** 16n, recipient: CREATOR },
      ],
      signature: '0x1234',
      ...over,
    },
  ]);
}

/** An item offer of 1 WETH for NFT #7 by SELLER (as offerer), fees paid in WETH out of it. */
export function offerParams(over: Record<string, unknown> = {}) {
  return {
    offerer: SELLER,
    zone: a(0x20e),
    offer: [{ itemType: 1, token: WETH, identifierOrCriteria: 0n, startAmount: ETH, endAmount: ETH }],
    consideration: [
      {
        itemType: 2,
        token: NFT,
        identifierOrCriteria: 7n,
        startAmount: 1n,
        endAmount: 1n,
        recipient: SELLER,
      },
      {
        itemType: 1,
        token: WETH,
        identifierOrCriteria: 0n,
        startAmount: 10n ** 16n,
        endAmount: 10n ** 16n,
        recipient: FEE,
      },
      {
        itemType: 1,
        token: WETH,
        identifierOrCriteria: 0n,
        startAmount: 5n * 10n ** 16n,
        endAmount: 5n * 10n ** 16n,
        recipient: CREATOR,
      },
    ],
    orderType: 3,
    startTime: 1000n,
    endTime: 99999999999n,
    zoneHash: ZeroHash,
    salt: 999n,
    conduitKey: CONDUIT_KEY,
    totalOriginalConsiderationItems: 3n,
    ...over,
  };
}

export const tx = (data: string, over: Partial<ProposedTx> = {}): ProposedTx => ({
  chainId: CHAIN,
  to: SEAPORT,
  data,
  value: 0n,
  ...over,
});

export const buyIntent = (over: Record<string, unknown> = {}) => ({
  kind: 'buy_listing' as const,
  chainId: CHAIN,
  nft: { contract: NFT, identifier: 7n },
  maxPrice: ETH,
  paymentToken: ZeroAddress,
  recipient: ME,
  feeRecipients: [CREATOR],
  ...over,
});

export const offerIntent = (over: Record<string, unknown> = {}) => ({
  kind: 'accept_offer' as const,
  chainId: CHAIN,
  nft: { contract: NFT, identifier: 7n },
  minProceeds: 94n * 10n ** 16n,
  paymentToken: WETH,
  recipient: ME,
  feeRecipients: [CREATOR],
  ...over,
});

/** Runs `f` and returns the guard reason it threw (fails the test when it does not throw one). */
export function reasonOf(f: () => unknown): GuardReason {
  try {
    f();
  } catch (e) {
    if (e instanceof GuardRejectedError) return e.reason;
    throw e;
  }
  throw new Error('expected a guard rejection, got none');
}

export async function asyncReasonOf(p: Promise<unknown>): Promise<GuardReason> {
  try {
    await p;
  } catch (e) {
    if (e instanceof GuardRejectedError) return e.reason;
    throw e;
  }
  throw new Error('expected a guard rejection, got none');
}
