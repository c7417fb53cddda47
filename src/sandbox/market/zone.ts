/**
 * The marketplace side of `SandboxSignedZone`: authorizations for zone-protected orders, bound to
 * the fulfiller, the order and the exact resolved consideration, with a short expiry.
 */
import { Signature, type Wallet } from 'ethers';
import {
  considerationHash,
  type ReceivedItem,
  SIGNED_ORDER_TYPES,
  zoneDomain,
  zoneExtraData,
} from './seaport.ts';

export interface ZoneSigner {
  readonly address: string;
  /** The fulfillment's extraData: expiration ‖ signature. */
  authorize(args: {
    fulfiller: string;
    orderHash: string;
    consideration: readonly ReceivedItem[];
    expiration: bigint;
  }): Promise<string>;
}

export function zoneSigner(wallet: Wallet, chainId: number, zone: string): ZoneSigner {
  const domain = zoneDomain(chainId, zone);
  return {
    address: wallet.address,
    async authorize({ fulfiller, orderHash, consideration, expiration }) {
      const sig = await wallet.signTypedData(domain, SIGNED_ORDER_TYPES, {
        fulfiller,
        expiration,
        orderHash,
        considerationHash: considerationHash(consideration),
      });
      return zoneExtraData(expiration, Signature.from(sig).serialized);
    },
  };
}
