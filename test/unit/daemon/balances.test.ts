import { Interface } from 'ethers';
import { describe, expect, it } from 'vitest';
import { createBalancesReader } from '../../../src/daemon/views.ts';
import { type Address, ZERO_ADDRESS } from '../../../src/domain/ids.ts';
import { ManualClock } from '../../../src/engine/memory.ts';

const ERC20 = new Interface(['function balanceOf(address) view returns (uint256)']);
const WALLET = '0x00000000000000000000000000000000000000aa';
const WETH = {
  address: '0x00000000000000000000000000000000000000e1' as Address,
  symbol: 'WETH',
  decimals: 18,
};

/**
 * An RPC answering what the chain holds when asked, after `delayMs` (set per read): a slow read
 * started first can end after a quick one started later.
 */
function slowRpc() {
  const chain = { eth: 0n, weth: 0n };
  let delayMs = 0;
  const later = <T>(v: T) => new Promise<T>((done) => setTimeout(() => done(v), delayMs));
  return {
    chain,
    delay: (ms: number) => {
      delayMs = ms;
    },
    balance: (address: string) => later(address === WALLET ? chain.eth : 0n),
    call: () => later(ERC20.encodeFunctionResult('balanceOf', [chain.weth])),
  };
}

describe('the wallet balances reader', () => {
  it('reads that overlap: the one started last wins, whichever ends last (a read from before a swap never takes back one after it)', async () => {
    const rpc = slowRpc();
    const reader = createBalancesReader({
      rpc,
      wallet: WALLET,
      tokens: [WETH],
      clock: new ManualClock(1_000),
    });
    // the poll's read starts before the wrap, sees the wallet as it was and is slow to end
    rpc.chain.eth = 10n;
    rpc.delay(60);
    const old = reader.refresh();
    await new Promise((r) => setTimeout(r, 5));
    // the wrap lands; the read after it starts second and ends first
    rpc.chain.eth = 5n;
    rpc.chain.weth = 5n;
    rpc.delay(0);
    await reader.refresh();
    const after = new Map([
      [ZERO_ADDRESS, 5n],
      [WETH.address, 5n],
    ]);
    expect(reader.get()?.value).toEqual(after);
    // the first ends later (it read ETH before the wrap): it does not take back what the second saw
    await old;
    expect(reader.get()?.value).toEqual(after);
    // a read started later still wins
    rpc.chain.weth = 6n;
    await reader.refresh();
    expect(reader.get()?.value.get(WETH.address)).toBe(6n);
  });
});
