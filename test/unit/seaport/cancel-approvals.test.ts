import { Interface } from 'ethers';
import { describe, expect, it } from 'vitest';
import { createApprovals } from '../../../src/seaport/approvals.ts';
import {
  cancelPlan,
  hardCancelTx,
  incrementCounterTx,
  signatureValidUntilMs,
} from '../../../src/seaport/cancel.ts';
import { OrderType, SEAPORT_ABI, ZERO_ADDRESS } from '../../../src/seaport/constants.ts';
import { createSeaportOrders } from '../../../src/seaport/orders.ts';
import { ADDRESS, CREATOR, deps, FEES, NFT, OPTIONS, SEAPORT, WETH, ZONE } from './fixtures.ts';

const CONDUIT = '0x1E0049783F008A0085193E00003D00cd54003c71';
const seaport = new Interface(SEAPORT_ABI as unknown as string[]);

describe('cancelPlan', () => {
  const zoned = { orderType: OrderType.FULL_RESTRICTED, zone: ZONE };
  it('off-chain only for a zone-protected order with no fulfillment signature issued', () => {
    expect(cancelPlan(zoned, { fulfillmentSignatureIssued: false })).toBe('offchain');
    expect(cancelPlan(zoned, { fulfillmentSignatureIssued: true })).toBe('onchain');
    expect(
      cancelPlan(
        { orderType: OrderType.PARTIAL_RESTRICTED, zone: ZONE },
        { fulfillmentSignatureIssued: false },
      ),
    ).toBe('offchain');
  });
  it('open orders always on chain', () => {
    expect(
      cancelPlan(
        { orderType: OrderType.FULL_OPEN, zone: ZERO_ADDRESS },
        { fulfillmentSignatureIssued: false },
      ),
    ).toBe('onchain');
    expect(
      cancelPlan(
        { orderType: OrderType.FULL_RESTRICTED, zone: ZERO_ADDRESS },
        { fulfillmentSignatureIssued: false },
      ),
    ).toBe('onchain');
  });
  it('an issued signature that has expired (chain now past valid-until) allows off-chain', () => {
    expect(
      cancelPlan(zoned, { fulfillmentSignatureIssued: true, lastSignatureValidUntilSec: 100n, nowSec: 101n }),
    ).toBe('offchain');
    expect(
      cancelPlan(zoned, { fulfillmentSignatureIssued: true, lastSignatureValidUntilSec: 100n, nowSec: 100n }),
    ).toBe('onchain');
  });
});

describe('signatureValidUntilMs', () => {
  it('reads last_signature_issued_valid_until as epoch ms; a non-date is a clear refusal', () => {
    const res = { last_signature_issued_valid_until: new Date(1_700_000_100_000).toISOString() };
    expect(signatureValidUntilMs(res)).toBe(1_700_000_100_000);
    expect(() => signatureValidUntilMs({ last_signature_issued_valid_until: 'soon' })).toThrow(/date/);
  });
});

describe('hard cancel transactions', () => {
  it('cancel(OrderComponents[]) encodes our orders; incrementCounter() has no args', async () => {
    const orders = createSeaportOrders(OPTIONS, deps().deps);
    const o = await orders.itemOffer({
      nft: { contract: NFT, tokenId: 1n, standard: 'erc721' },
      price: 10n ** 18n,
      fees: FEES,
    });
    const tx = hardCancelTx({ chainId: 1, protocolAddress: SEAPORT, offerer: ADDRESS }, [o.components]);
    expect(tx.to).toBe(SEAPORT);
    expect(tx.value).toBe(0n);
    const decoded = seaport.decodeFunctionData('cancel', tx.data);
    const first = (decoded[0] as unknown[])[0] as { offerer: string; salt: bigint; counter: bigint };
    expect(first.offerer).toBe(ADDRESS);
    expect(first.salt).toBe(o.components.salt);
    expect(first.counter).toBe(o.components.counter);
    expect(incrementCounterTx({ chainId: 1, protocolAddress: SEAPORT }).data).toBe(
      seaport.getFunction('incrementCounter')?.selector,
    );
  });
  it('refuses to cancel orders of another offerer, or none', async () => {
    const orders = createSeaportOrders(OPTIONS, deps().deps);
    const o = await orders.itemOffer({
      nft: { contract: NFT, tokenId: 1n, standard: 'erc721' },
      price: 10n ** 18n,
      fees: FEES,
    });
    expect(() =>
      hardCancelTx({ chainId: 1, protocolAddress: SEAPORT, offerer: CREATOR }, [o.components]),
    ).toThrow(/offerer/);
    expect(() => hardCancelTx({ chainId: 1, protocolAddress: SEAPORT, offerer: ADDRESS }, [])).toThrow(
      /no orders/,
    );
  });
});

describe('approvals', () => {
  const erc20 = new Interface(['function approve(address,uint256)']);
  const nft = new Interface(['function setApprovalForAll(address,bool)']);
  function reader(allowance: bigint, approved: boolean) {
    const calls: unknown[][] = [];
    return {
      calls,
      reader: {
        async allowance(...a: unknown[]) {
          calls.push(['allowance', ...a]);
          return allowance;
        },
        async isApprovedForAll(...a: unknown[]) {
          calls.push(['isApprovedForAll', ...a]);
          return approved;
        },
      },
    };
  }

  it('WETH exact: approves exactly the need to the conduit, only when the allowance is short', async () => {
    const r = reader(5n, false);
    const a = createApprovals({ chainId: 1, conduit: CONDUIT }, r.reader);
    const tx = await a.weth(WETH, ADDRESS, 100n);
    expect(r.calls[0]).toEqual(['allowance', WETH, ADDRESS, CONDUIT]);
    expect(tx?.to).toBe(WETH);
    const [spender, amount] = erc20.decodeFunctionData('approve', tx?.data as string);
    expect(spender).toBe(CONDUIT);
    expect(amount).toBe(100n);
    expect(await a.weth(WETH, ADDRESS, 5n)).toBeNull();
  });

  it('WETH capped: approves the cap; a need above the cap is refused', async () => {
    const a = createApprovals(
      { chainId: 1, conduit: CONDUIT, wethMode: { kind: 'capped', cap: 1000n } },
      reader(0n, false).reader,
    );
    const tx = await a.weth(WETH, ADDRESS, 100n);
    expect(erc20.decodeFunctionData('approve', tx?.data as string)[1]).toBe(1000n);
    await expect(a.weth(WETH, ADDRESS, 1001n)).rejects.toThrow(/cap/);
  });

  it('NFT: setApprovalForAll(conduit, true) only when not approved', async () => {
    const r = reader(0n, false);
    const tx = await createApprovals({ chainId: 1, conduit: CONDUIT }, r.reader).nft(NFT, ADDRESS);
    expect(r.calls[0]).toEqual(['isApprovedForAll', NFT, ADDRESS, CONDUIT]);
    expect(nft.decodeFunctionData('setApprovalForAll', tx?.data as string)).toEqual([CONDUIT, true]);
    expect(
      await createApprovals({ chainId: 1, conduit: CONDUIT }, reader(0n, true).reader).nft(NFT, ADDRESS),
    ).toBeNull();
  });

  it('refuses the zero conduit', () => {
    expect(() => createApprovals({ chainId: 1, conduit: ZERO_ADDRESS }, reader(0n, true).reader)).toThrow(
      /zero/,
    );
  });
});
