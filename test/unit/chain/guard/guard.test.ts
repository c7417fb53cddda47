import { Interface, ZeroAddress } from 'ethers';
import { describe, expect, it } from 'vitest';
import {
  fulfillmentProposal,
  GUARD_REASONS,
  GuardRejectedError,
  mintProposal,
  SELECTORS,
  type SimulationCall,
  swapQuoteProposals,
} from '../../../../src/chain/guard/index.ts';
import { RejectedError } from '../../../../src/errors/index.ts';
import {
  ATTACKER,
  advancedListing,
  asyncReasonOf,
  buyIntent,
  CHAIN,
  DROP,
  dropI,
  ETH,
  listingParams,
  ME,
  newGuard,
  ROUTER,
  reasonOf,
  routerI,
  SEAPORT,
  seaportI,
  tx,
  USDC,
  WETH,
} from './helpers.ts';

describe('ABI fragments', () => {
  it('have the real selectors', () => {
    expect(SELECTORS).toMatchObject({
      fulfillBasicOrder: '0xfb0f3ee1',
      fulfillBasicOrderEfficient: '0x00000000',
      fulfillOrder: '0xb3a34c4c',
      fulfillAdvancedOrder: '0xe7acab24',
      matchAdvancedOrders: '0xf2d12b12',
      approve: '0x095ea7b3',
      deposit: '0xd0e30db0',
      withdraw: '0x2e1a7d4d',
    });
    expect(routerI.getFunction('swapExactETHForTokens')?.selector).toBe('0x7ff36ab5');
    expect(routerI.getFunction('swapExactTokensForETH')?.selector).toBe('0x18cbafe5');
    expect(routerI.getFunction('swapExactTokensForTokens')?.selector).toBe('0x38ed1739');
    expect(
      new Interface(['function setApprovalForAll(address,bool)']).getFunction('setApprovalForAll')?.selector,
    ).toBe('0xa22cb465');
  });
});

/** A fulfillment response shaped like the API's (input_data keyed by parameter names). */
function fulfillmentResponse(over: Record<string, unknown> = {}) {
  const p = listingParams();
  const wire = JSON.parse(JSON.stringify(p, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)));
  return {
    protocol: 'seaport1.6',
    fulfillment_data: {
      transaction: {
        function: seaportI.getFunction('fulfillAdvancedOrder')?.format('sighash'),
        chain: CHAIN,
        to: SEAPORT,
        value: ETH.toString(),
        value_hex: `0x${ETH.toString(16)}`,
        input_data: {
          advancedOrder: {
            parameters: wire,
            numerator: 1,
            denominator: 1,
            signature: '0x1234',
            extraData: '0x',
          },
          criteriaResolvers: [],
          fulfillerConduitKey: `0x${'00'.repeat(32)}`,
          recipient: ME,
        },
        ...over,
      },
      orders: [{ parameters: { ...wire, counter: 0 }, signature: '0x1234' }],
    },
  };
}

describe('responses → transactions', () => {
  it('fulfillment data encodes to the same calldata as the hand-built call, with the counter', () => {
    const p = fulfillmentProposal(fulfillmentResponse());
    expect(p).toMatchObject({ chainId: CHAIN, to: SEAPORT.toLowerCase(), value: ETH, orderCounter: 0n });
    expect(p.data).toBe(advancedListing().toLowerCase());
  });

  it('appends the calldata suffix (then refused unless allowlisted)', () => {
    const p = fulfillmentProposal(fulfillmentResponse({ calldata_suffix: '0xcdb44011' }));
    expect(p.data.endsWith('cdb44011')).toBe(true);
    expect(reasonOf(() => newGuard().check(p, buyIntent()))).toBe('trailing_bytes');
    expect(newGuard({ calldataSuffixes: ['0xcdb44011'] }).check(p, buyIntent())).toHaveLength(1);
  });

  it.each([
    ['no transaction', { fulfillment_data: {} }, 'malformed_response'],
    ['unknown function', fulfillmentResponse({ function: 'drain(address)' }), 'unknown_function'],
    [
      'input_data lacks a parameter',
      fulfillmentResponse({ input_data: { criteriaResolvers: [] } }),
      'malformed_response',
    ],
    ['value and value_hex disagree', fulfillmentResponse({ value_hex: '0x1' }), 'malformed_response'],
    ['bad chain', fulfillmentResponse({ chain: 'moon' }), 'malformed_response'],
    ['bad to', fulfillmentResponse({ to: 'seaport' }), 'malformed_response'],
  ])('%s → refused', (_n, resp, reason) => {
    expect(reasonOf(() => fulfillmentProposal(resp))).toBe(reason);
  });

  it('approval calldata substituted in a fulfillment response is encoded and then refused as dangerous', () => {
    const p = fulfillmentProposal(
      fulfillmentResponse({
        function: 'approve(address,uint256)',
        input_data: { spender: ATTACKER, value: '1' },
      }),
    );
    expect(reasonOf(() => newGuard().check(p, buyIntent()))).toBe('dangerous_call');
  });

  it('swap quotes and mints: chain names, decimal and hex values', () => {
    const [s] = swapQuoteProposals({
      transactions: [{ chain: 'ethereum', to: ROUTER, data: '0xabcdef01', value: '5', value_hex: '0x05' }],
    });
    expect(s).toEqual({ chainId: 1, to: ROUTER.toLowerCase(), data: '0xabcdef01', value: 5n });
    expect(mintProposal({ chain: 'base', to: DROP, data: '0x12345678', value: '0x10' })).toMatchObject({
      chainId: 8453,
      value: 16n,
    });
    expect(reasonOf(() => swapQuoteProposals({ transactions: [] }))).toBe('malformed_response');
    expect(reasonOf(() => mintProposal({ chain: 'ethereum', to: DROP, data: 'zz', value: '0x0' }))).toBe(
      'malformed_response',
    );
  });
});

describe('simulation, logging and counting', () => {
  it('simulates the first step with our wallet as sender and returns it marked simulated', async () => {
    const calls: SimulationCall[] = [];
    const g = newGuard({
      call: async (c) => {
        calls.push(c);
        return seaportI.encodeFunctionResult('fulfillAdvancedOrder', [true]);
      },
    });
    const [t] = await g.guard(tx(advancedListing(), { value: ETH }), buyIntent());
    expect(t?.simulated).toBe(true);
    expect(calls).toEqual([
      {
        chainId: CHAIN,
        from: ME.toLowerCase(),
        to: SEAPORT.toLowerCase(),
        data: advancedListing().toLowerCase(),
        value: ETH,
      },
    ]);
  });

  it('a revert is a rejection; a fulfillment that does not report success too', async () => {
    const reverting = newGuard({
      call: async () => Promise.reject(Object.assign(new Error('x'), { shortMessage: 'execution reverted' })),
    });
    expect(await asyncReasonOf(reverting.guard(tx(advancedListing(), { value: ETH }), buyIntent()))).toBe(
      'simulation_reverted',
    );
    const falsy = newGuard({
      call: async () => seaportI.encodeFunctionResult('fulfillAdvancedOrder', [false]),
    });
    expect(await asyncReasonOf(falsy.guard(tx(advancedListing(), { value: ETH }), buyIntent()))).toBe(
      'simulation_output_mismatch',
    );
  });

  it('a simulated swap must yield at least the minimum out', async () => {
    const data = routerI.encodeFunctionData('swapExactETHForTokens', [
      100n,
      [WETH, USDC],
      ME,
      2_000_000_000n,
    ]);
    const intent = {
      kind: 'swap' as const,
      chainId: CHAIN,
      fromToken: ZeroAddress,
      toToken: USDC,
      amountIn: ETH,
      minAmountOut: 100n,
      recipient: ME,
    };
    const low = newGuard({
      call: async () => routerI.encodeFunctionResult('swapExactETHForTokens', [[ETH, 99n]]),
    });
    expect(await asyncReasonOf(low.guard(tx(data, { to: ROUTER, value: ETH }), intent))).toBe(
      'simulation_output_mismatch',
    );
    const ok = newGuard({
      call: async () => routerI.encodeFunctionResult('swapExactETHForTokens', [[ETH, 150n]]),
    });
    expect(
      (await ok.guard(tx(data, { to: ROUTER, value: ETH }), intent))[0]?.facts['simulatedAmountOut'],
    ).toBe('150');
  });

  it('nothing is simulated when a check fails; refusals are counted per reason, logged and reported', async () => {
    let simulated = 0;
    const seen: string[] = [];
    const logged: unknown[] = [];
    const logger = { warn: (obj: unknown) => logged.push(obj) } as never;
    const g = newGuard({
      call: async () => {
        simulated++;
        return '0x';
      },
      logger,
      onRejected: (reason) => seen.push(reason),
    });
    const bad = tx(advancedListing(listingParams(), { recipient: ATTACKER }), { value: ETH });
    await expect(g.guard(bad, buyIntent())).rejects.toBeInstanceOf(GuardRejectedError);
    expect(reasonOf(() => g.check(bad, buyIntent()))).toBe('recipient_mismatch');
    expect(reasonOf(() => g.check(tx(advancedListing(), { value: 100n * ETH }), buyIntent()))).toBe(
      'value_above_cap',
    );
    expect(simulated).toBe(0);
    expect(g.rejections()).toEqual({ recipient_mismatch: 2, value_above_cap: 1 });
    expect(seen).toEqual(['recipient_mismatch', 'recipient_mismatch', 'value_above_cap']);
    expect(logged[0]).toMatchObject({
      reason: 'recipient_mismatch',
      code: 'guard_recipient_mismatch',
      intent: 'buy_listing',
    });
  });

  it('refusals are RejectedErrors with a guard_ code and a human message', () => {
    try {
      newGuard().check(tx(dropI.encodeFunctionData('mint', [0n, ME, 1n, []]), { to: SEAPORT }), buyIntent());
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(RejectedError);
      const r = e as GuardRejectedError;
      expect(r.code).toBe('guard_function_not_allowed');
      expect(GUARD_REASONS).toContain(r.reason);
      expect(r.shortMessage).toMatch(/mint\(uint256,address,uint256,bytes32\[\]\)/);
      expect(r.toJSON()).toMatchObject({
        code: 'guard_function_not_allowed',
        details: { reason: 'function_not_allowed' },
      });
    }
  });

  it('guardFulfillment converts and guards in one call', async () => {
    const g = newGuard({ call: async () => seaportI.encodeFunctionResult('fulfillAdvancedOrder', [true]) });
    const t = await g.guardFulfillment(fulfillmentResponse(), buyIntent());
    expect(t.step).toBe('fulfill_listing');
    expect(await asyncReasonOf(g.guardFulfillment(fulfillmentResponse({ to: ATTACKER }), buyIntent()))).toBe(
      'target_not_allowed',
    );
    expect(g.rejections()).toEqual({ target_not_allowed: 1 });
  });
});
