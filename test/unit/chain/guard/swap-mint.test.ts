import { ZeroAddress, ZeroHash } from 'ethers';
import { describe, expect, it } from 'vitest';
import type { SwapIntent } from '../../../../src/chain/guard/index.ts';
import {
  ATTACKER,
  CHAIN,
  DROP,
  dangerI,
  dropI,
  ETH,
  ME,
  newGuard,
  ROUTER,
  reasonOf,
  routerI,
  tx,
  USDC,
  WETH,
  wethI,
} from './helpers.ts';

const g = newGuard();
const swapIntent = (over: Partial<SwapIntent> = {}): SwapIntent => ({
  kind: 'swap',
  chainId: CHAIN,
  fromToken: ZeroAddress,
  toToken: USDC,
  amountIn: ETH,
  minAmountOut: 2_900_000_000n,
  recipient: ME,
  ...over,
});
const ethToUsdc = (over: { min?: bigint; path?: string[]; to?: string; deadline?: bigint } = {}) =>
  routerI.encodeFunctionData('swapExactETHForTokens', [
    over.min ?? 2_950_000_000n,
    over.path ?? [WETH, USDC],
    over.to ?? ME,
    over.deadline ?? 2_000_000_000n,
  ]);
const usdcToEth = (amountIn = 3_000_000_000n, min = ETH / 2n) =>
  routerI.encodeFunctionData('swapExactTokensForETH', [amountIn, min, [USDC, WETH], ME, 2_000_000_000n]);
const approve = (spender = ROUTER, amount = 3_000_000_000n) =>
  dangerI.encodeFunctionData('approve', [spender, amount]);
const usdcIntent = swapIntent({
  fromToken: USDC,
  toToken: ZeroAddress,
  amountIn: 3_000_000_000n,
  minAmountOut: ETH / 2n,
});

describe('swap', () => {
  it('ETH → token through the router passes', () => {
    const [s] = g.check(tx(ethToUsdc(), { to: ROUTER, value: ETH }), swapIntent());
    expect(s).toMatchObject({ step: 'swap', value: ETH });
    expect(s?.facts['amountOutMin']).toBe('2950000000');
  });

  it('token → ETH with the exact approval first passes', () => {
    const out = g.check([tx(approve(), { to: USDC }), tx(usdcToEth(), { to: ROUTER })], usdcIntent);
    expect(out.map((t) => t.step)).toEqual(['approve', 'swap']);
  });

  it('wrap and unwrap pass', () => {
    expect(
      g.check(
        tx(wethI.encodeFunctionData('deposit', []), { to: WETH, value: ETH }),
        swapIntent({ toToken: WETH, minAmountOut: ETH }),
      )[0]?.step,
    ).toBe('wrap');
    expect(
      g.check(
        tx(wethI.encodeFunctionData('withdraw', [ETH]), { to: WETH }),
        swapIntent({ fromToken: WETH, toToken: ZeroAddress, minAmountOut: ETH }),
      )[0]?.step,
    ).toBe('unwrap');
  });

  const cases: [string, () => unknown, string][] = [
    [
      'recipient changed',
      () => g.check(tx(ethToUsdc({ to: ATTACKER }), { to: ROUTER, value: ETH }), swapIntent()),
      'recipient_mismatch',
    ],
    [
      'value × 10',
      () => g.check(tx(ethToUsdc(), { to: ROUTER, value: 10n * ETH }), swapIntent()),
      'swap_amount_mismatch',
    ],
    [
      'min out lowered',
      () => g.check(tx(ethToUsdc({ min: 1n }), { to: ROUTER, value: ETH }), swapIntent()),
      'swap_min_out_too_low',
    ],
    [
      'path ends in another token',
      () => g.check(tx(ethToUsdc({ path: [WETH, ATTACKER] }), { to: ROUTER, value: ETH }), swapIntent()),
      'swap_path_mismatch',
    ],
    [
      'target changed',
      () => g.check(tx(ethToUsdc(), { to: ATTACKER, value: ETH }), swapIntent()),
      'target_not_allowed',
    ],
    [
      'wrong chain',
      () => g.check(tx(ethToUsdc(), { to: ROUTER, value: ETH, chainId: 10 }), swapIntent()),
      'chain_mismatch',
    ],
    [
      'function changed (exact-out)',
      () =>
        g.check(
          tx(routerI.encodeFunctionData('swapETHForExactTokens', [1n, [WETH, USDC], ME, 1n]), {
            to: ROUTER,
            value: ETH,
          }),
          swapIntent(),
        ),
      'function_not_allowed',
    ],
    [
      'trailing bytes',
      () => g.check(tx(`${ethToUsdc()}00ff`, { to: ROUTER, value: ETH }), swapIntent()),
      'trailing_bytes',
    ],
    [
      'approval to the attacker',
      () => g.check([tx(approve(ATTACKER), { to: USDC }), tx(usdcToEth(), { to: ROUTER })], usdcIntent),
      'approval_not_allowed',
    ],
    [
      'unlimited approval',
      () =>
        g.check(
          [tx(approve(ROUTER, 2n ** 256n - 1n), { to: USDC }), tx(usdcToEth(), { to: ROUTER })],
          usdcIntent,
        ),
      'approval_not_allowed',
    ],
    [
      'approval on another token',
      () => g.check([tx(approve(), { to: WETH }), tx(usdcToEth(), { to: ROUTER })], usdcIntent),
      'approval_not_allowed',
    ],
    [
      'setApprovalForAll instead of the approval',
      () =>
        g.check(
          [
            tx(dangerI.encodeFunctionData('setApprovalForAll', [ROUTER, true]), { to: USDC }),
            tx(usdcToEth(), { to: ROUTER }),
          ],
          usdcIntent,
        ),
      'dangerous_call',
    ],
    ['approval alone', () => g.check(tx(approve(), { to: USDC }), usdcIntent), 'dangerous_call'],
    [
      'approval for an ETH swap',
      () => g.check([tx(approve(), { to: USDC }), tx(ethToUsdc(), { to: ROUTER, value: ETH })], swapIntent()),
      'unexpected_transaction',
    ],
    [
      'an extra transfer step',
      () =>
        g.check(
          [
            tx(approve(), { to: USDC }),
            tx(usdcToEth(), { to: ROUTER }),
            tx(dangerI.encodeFunctionData('transfer', [ATTACKER, 1n]), { to: USDC }),
          ],
          usdcIntent,
        ),
      'unexpected_transaction',
    ],
    [
      'amount in changed',
      () => g.check([tx(approve(), { to: USDC }), tx(usdcToEth(3_000_000_001n), { to: ROUTER })], usdcIntent),
      'swap_amount_mismatch',
    ],
    [
      'wrap with the wrong value',
      () =>
        g.check(
          tx(wethI.encodeFunctionData('deposit', []), { to: WETH, value: 2n * ETH }),
          swapIntent({ toToken: WETH, minAmountOut: ETH }),
        ),
      'swap_amount_mismatch',
    ],
    [
      'wrap on another contract',
      () =>
        g.check(
          tx(wethI.encodeFunctionData('deposit', []), { to: ATTACKER, value: ETH }),
          swapIntent({ toToken: WETH, minAmountOut: ETH }),
        ),
      'target_not_allowed',
    ],
    [
      'unwrap then a plain send',
      () =>
        g.check(
          [
            tx(wethI.encodeFunctionData('withdraw', [ETH]), { to: WETH }),
            tx('0x', { to: ATTACKER, value: ETH }),
          ],
          swapIntent({ fromToken: WETH, toToken: ZeroAddress, minAmountOut: ETH }),
        ),
      'unexpected_transaction',
    ],
    [
      'deadline past the intent',
      () =>
        g.check(
          tx(ethToUsdc({ deadline: 3_000_000_000n }), { to: ROUTER, value: ETH }),
          swapIntent({ maxDeadline: 2_500_000_000n }),
        ),
      'function_not_allowed',
    ],
  ];
  it.each(cases)('%s', (_name, f, reason) => {
    expect(reasonOf(f)).toBe(reason);
  });
});

describe('mint', () => {
  const mintIntent = (over: Record<string, unknown> = {}) => ({
    kind: 'mint' as const,
    chainId: CHAIN,
    drop: DROP,
    quantity: 2n,
    maxValue: ETH / 10n,
    recipient: ME,
    ...over,
  });
  const mint = (minter = ME, quantity = 2n) =>
    dropI.encodeFunctionData('mint', [0n, minter, quantity, [ZeroHash]]);

  it('the staged mint to our wallet passes', () => {
    const [m] = g.check(tx(mint(), { to: DROP, value: ETH / 20n }), mintIntent());
    expect(m).toMatchObject({ step: 'mint', value: ETH / 20n });
    expect(m?.facts['quantity']).toBe('2');
  });

  const cases: [string, () => unknown, string][] = [
    [
      'minter changed',
      () => g.check(tx(mint(ATTACKER), { to: DROP, value: 1n }), mintIntent()),
      'recipient_mismatch',
    ],
    [
      'quantity changed',
      () => g.check(tx(mint(ME, 3n), { to: DROP, value: 1n }), mintIntent()),
      'quantity_mismatch',
    ],
    [
      'value × 1000',
      () => g.check(tx(mint(), { to: DROP, value: 100n * ETH }), mintIntent()),
      'value_above_cap',
    ],
    [
      'target changed',
      () => g.check(tx(mint(), { to: ATTACKER, value: 1n }), mintIntent()),
      'target_not_allowed',
    ],
    [
      'another allowlisted drop than the intent',
      () =>
        newGuard({ drops: [DROP, ATTACKER] }).check(tx(mint(), { to: ATTACKER, value: 1n }), mintIntent()),
      'target_not_allowed',
    ],
    [
      'setApprovalForAll substituted',
      () =>
        g.check(
          tx(dangerI.encodeFunctionData('setApprovalForAll', [ATTACKER, true]), { to: DROP }),
          mintIntent(),
        ),
      'dangerous_call',
    ],
    [
      'function changed (a WETH deposit)',
      () => g.check(tx(wethI.encodeFunctionData('deposit', []), { to: DROP, value: 1n }), mintIntent()),
      'function_not_allowed',
    ],
    [
      'trailing bytes',
      () => g.check(tx(`${mint()}ab`, { to: DROP, value: 1n }), mintIntent()),
      'trailing_bytes',
    ],
    [
      'wrong chain',
      () => g.check(tx(mint(), { to: DROP, value: 1n, chainId: 8453 }), mintIntent()),
      'chain_mismatch',
    ],
    [
      'zero quantity intent',
      () => g.check(tx(mint(), { to: DROP, value: 1n }), mintIntent({ quantity: 0n })),
      'intent_invalid',
    ],
  ];
  it.each(cases)('%s', (_name, f, reason) => {
    expect(reasonOf(f)).toBe(reason);
  });
});
