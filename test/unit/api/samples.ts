/** Request bodies the client tests send (valid enough to pass the client's own input checks). */
import type { SeaportRequest } from '@opensea/api-types';
import type { SiweVerifyRequest } from '../../../src/api/types.ts';

/** A signed Seaport order envelope with empty items (the shape, not a real order). */
export function seaportRequest(offerer: string, protocolAddress: string): SeaportRequest {
  return {
    parameters: {
      offerer,
      zone: '0x0000000000000000000000000000000000000000',
      offer: [],
      consideration: [],
      orderType: 1,
      startTime: '1',
      endTime: '2',
      zoneHash: `0x${'0'.repeat(64)}`,
      salt: '0x1',
      conduitKey: `0x${'0'.repeat(64)}`,
      totalOriginalConsiderationItems: 0,
      counter: '0',
    },
    signature: '0xsig',
    protocol_address: protocolAddress,
  };
}

/** A SIWE verify request for `address` on opensea.io (with the required `accountType`). */
export function siweVerifyRequest(address: string): SiweVerifyRequest {
  return {
    message: {
      domain: 'opensea.io',
      address,
      uri: 'https://opensea.io',
      version: '1',
      chainId: 1,
      nonce: 'n0nce',
      issuedAt: '2024-01-01T00:00:00Z',
      accountType: 'Ethereum',
    },
    signature: '0xsig',
    chainArch: 'EVM',
  };
}
