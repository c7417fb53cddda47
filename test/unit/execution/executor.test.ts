/**
 * The executor with the real calldata guard over recorded sandbox responses, the real store
 * (in memory) and a fake sender: states and records of each path, idempotency by intent id,
 * never a second buy of a listing, failures before and after sending, reconcile.
 */
import { Transaction, ZeroAddress } from 'ethers';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  createCalldataGuard,
  fulfillmentProposal,
  GuardRejectedError,
} from '../../../src/chain/guard/index.ts';
import { createTxSender } from '../../../src/chain/index.ts';
import { Secret } from '../../../src/domain/secret.ts';
import { FatalError, RejectedError, TransientError } from '../../../src/errors/index.ts';
import {
  type BuyListingInput,
  createExecutor,
  createFastTxSigner,
  type ExecutionStep,
  type Executor,
} from '../../../src/execution/index.ts';
import { openStore, type Store } from '../../../src/store/index.ts';
import { FakeChain } from '../chain/fakes/rpc.ts';
import { FakeSender, fakeApi, KEY, recorded } from './fakes.ts';

const rec = recorded();
const opts = rec.options;
const byName = (name: string) => {
  const c = rec.cases.find((x) => x.name === name);
  if (!c) throw new Error(`no recorded case ${name}`);
  return c;
};
const ethListing = byName('listing paid in ETH (basic order)');
const mintCase = byName('drop mint');
const TRUE = `0x${'0'.repeat(63)}1`;

let store: Store;
let sender: FakeSender;
let steps: ExecutionStep[];
let simulations: number;
let fake: ReturnType<typeof fakeApi>;
let ex: Executor;
/** Refusals the guard told (counted in the daemon's status, alerted on). */
let told: string[];

function build(simulate: () => Promise<string> = async () => TRUE): Executor {
  const guard = createCalldataGuard({
    ...opts,
    call: async () => {
      simulations++;
      return simulate();
    },
    onRejected: (reason) => told.push(reason),
  });
  return createExecutor({
    api: fake.api,
    guard,
    sender,
    rpc: { estimateGas: async () => 100_000n },
    store,
    chainId: opts.chainId,
    chain: 'ethereum',
    wallet: sender.address,
    protocolAddress: opts.seaport[0] as string,
    onStep: (s) => steps.push(s),
  });
}

const li = ethListing.intent as {
  nft: { contract: string; identifier: bigint };
  orderHash: string;
  maxPrice: bigint;
  feeRecipients: string[];
};
const buy = (intentId: string, over: Partial<BuyListingInput> = {}): BuyListingInput => ({
  intentId,
  orderHash: li.orderHash,
  collection: 'harpoon-apes',
  nft: { contract: li.nft.contract, tokenId: li.nft.identifier, standard: 'erc721' },
  maxPrice: li.maxPrice,
  paymentToken: ZeroAddress,
  feeRecipients: li.feeRecipients,
  ...over,
});

async function refusal(p: Promise<unknown>): Promise<RejectedError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof RejectedError) return e;
    throw e;
  }
  throw new Error('expected a rejection');
}

beforeEach(async () => {
  told = [];
  store = openStore(':memory:');
  sender = new FakeSender(store, opts.chainId);
  steps = [];
  simulations = 0;
  fake = fakeApi({ listing: ethListing.response, mint: mintCase.response });
  ex = build();
  await ex.reconcile();
});

/** Every step of a buy, in order. */
const BUY_STEPS: ExecutionStep[] = [
  'intent',
  'fulfillment',
  'guard',
  'simulated',
  'submitted',
  'receipt',
  'recorded',
];

describe('buy a listing', () => {
  it('runs every step in order and records the fill, the spend and done', async () => {
    const out = await ex.buyListing(buy('b1'));
    expect(steps).toEqual(BUY_STEPS);
    expect(out).toMatchObject({ intentId: 'b1', kind: 'buy_listing', state: 'done', spent: li.maxPrice });
    expect(out.txHash).toBe(store.transactions.byIntent('b1/fill')[0]?.hash);
    expect(store.intents.get('b1')).toMatchObject({ state: 'done', targetKey: `listing:${li.orderHash}` });
    expect(store.fills.list()).toMatchObject([
      { intentId: 'b1', side: 'buy', orderHash: li.orderHash, price: li.maxPrice, txHash: out.txHash },
    ]);
    expect(
      store.spend
        .list()
        .map((s) => [s.kind, s.amount])
        .sort(),
    ).toEqual([
      ['gas', 150_000_000_000_000n],
      ['price', li.maxPrice],
    ]);
    expect(simulations).toBe(1);
  });

  it('refuses to run before reconcile', async () => {
    const fresh = build();
    await expect(fresh.buyListing(buy('b0'))).rejects.toBeInstanceOf(FatalError);
    expect(fake.calls).toEqual([]);
  });

  it('the same intent id never executes twice; another intent on the listing is refused', async () => {
    const first = await ex.buyListing(buy('b1'));
    const again = await ex.buyListing(buy('b1'));
    expect(again).toMatchObject({ state: 'done', replayed: true, txHash: first.txHash });
    const e = await refusal(ex.buyListing(buy('b2')));
    expect(e.code).toBe('listing_already_filled');
    expect(sender.submits).toEqual(['b1/fill']);
    expect(fake.calls).toEqual(['listing']);
    expect(store.intents.get('b2')).toBeUndefined();
  });

  it('a listing with an unsettled intent is not bought by another one', async () => {
    sender.outcome = 'pending';
    const e1 = await ex.buyListing(buy('b1')).catch((e: unknown) => e);
    expect(e1).toBeInstanceOf(TransientError);
    expect(store.intents.get('b1')?.state).toBe('sent');
    const e2 = await refusal(ex.buyListing(buy('b2')));
    expect(e2.code).toBe('target_in_flight');
    expect(sender.submits).toEqual(['b1/fill']);
    // later the receipt comes: the same intent id resolves it, without a new transaction
    sender.outcome = 'mined';
    const out = await ex.buyListing(buy('b1'));
    expect(out.state).toBe('done');
    expect(sender.submits).toEqual(['b1/fill']);
    expect(store.fills.list()).toHaveLength(1);
  });

  it('a guard refusal fails the intent before anything is signed; the listing stays buyable', async () => {
    const e = await refusal(ex.buyListing(buy('b1', { maxPrice: li.maxPrice - 1n })));
    expect(e).toBeInstanceOf(GuardRejectedError);
    expect(store.intents.get('b1')).toMatchObject({ state: 'failed', error: e.code });
    expect(sender.submits).toEqual([]);
    expect(simulations).toBe(0);
    expect(steps).toEqual(['intent', 'fulfillment']);
    expect(store.spend.list()).toEqual([]);
    expect((await ex.buyListing(buy('b2'))).state).toBe('done');
    // a failed intent id stays failed
    expect((await refusal(ex.buyListing(buy('b1')))).code).toBe('intent_failed');
  });

  it('checkFill: the fulfillment data and the guard only — no intent written, nothing simulated, signed or sent', async () => {
    const { intentId: _id, ...input } = buy('unused');
    const tx = await ex.checkFill({ kind: 'buy_listing', ...input });
    expect(tx.facts['paid']).toBe(li.maxPrice.toString());
    const e = await refusal(ex.checkFill({ kind: 'buy_listing', ...input, maxPrice: li.maxPrice - 1n }));
    expect(e).toBeInstanceOf(GuardRejectedError);
    expect(steps).toEqual([]);
    expect(simulations).toBe(0);
    expect(sender.submits).toEqual([]);
    expect(store.intents.get('unused')).toBeUndefined();
    expect(store.spend.list()).toEqual([]);
    // the listing is still bought as usual afterwards
    expect((await ex.buyListing(buy('b1'))).state).toBe('done');
  });

  it('a payment to a fee recipient not known yet: the recipients are read again, and a fee the creator moved passes; the journal carries the new read', async () => {
    const creator = (li.feeRecipients[1] as string).toLowerCase();
    let renewals = 0;
    const out = await ex.buyListing(
      buy('b1', {
        // read before the creator's fee moved to the address the listing pays
        feeRecipients: [],
        renewFeeRecipients: async () => {
          renewals++;
          return li.feeRecipients;
        },
      }),
    );
    expect(out).toMatchObject({ state: 'done', spent: li.maxPrice });
    expect(renewals).toBe(1);
    // the same fulfillment data checked again: nothing fetched twice, every step once
    expect(fake.calls).toEqual(['listing']);
    expect(steps).toEqual(BUY_STEPS);
    // the journal's intent, which a restart re-derives the fill's facts from, names the recipient
    const payload = store.intents.get('b1')?.payload as { feeRecipients: string[] };
    expect(payload.feeRecipients).toContain(creator);
    // a fill that passed is no refusal: nothing counted or told
    expect(told).toEqual([]);
  });

  it('the refusal stands when the new read does not name the address, when it fails, or for any other refusal', async () => {
    const mp = li.feeRecipients[0] as string;
    let renewals = 0;
    const still = await refusal(
      ex.buyListing(
        buy('b1', {
          feeRecipients: [],
          renewFeeRecipients: async () => {
            renewals++;
            return [mp];
          },
        }),
      ),
    );
    expect(still.code).toBe('guard_unknown_consideration_recipient');
    expect(store.intents.get('b1')).toMatchObject({ state: 'failed', error: still.code });
    const failing = await refusal(
      ex.buyListing(
        buy('b2', {
          feeRecipients: [],
          renewFeeRecipients: async () => {
            renewals++;
            throw new TransientError('http_503', 'the API is down');
          },
        }),
      ),
    );
    // the guard's refusal, not the read's failure
    expect(failing.code).toBe('guard_unknown_consideration_recipient');
    expect(renewals).toBe(2);
    // a price above the cap is no fee moved: nothing read again
    const dear = await refusal(
      ex.buyListing(
        buy('b3', {
          maxPrice: li.maxPrice - 1n,
          renewFeeRecipients: async () => {
            renewals++;
            return li.feeRecipients;
          },
        }),
      ),
    );
    expect(dear).toBeInstanceOf(GuardRejectedError);
    expect(dear.code).not.toBe('guard_unknown_consideration_recipient');
    expect(renewals).toBe(2);
    expect(sender.submits).toEqual([]);
    // each refusal that stands is told once
    expect(told).toEqual([
      'unknown_consideration_recipient',
      'unknown_consideration_recipient',
      dear.code.slice('guard_'.length),
    ]);
    // checkFill (a simulation) reads again the same way
    const { intentId: _id, ...input } = buy('unused', {
      feeRecipients: [],
      renewFeeRecipients: async () => li.feeRecipients,
    });
    expect((await ex.checkFill({ kind: 'buy_listing', ...input })).facts['paid']).toBe(
      li.maxPrice.toString(),
    );
  });

  it('a reverted simulation is refused; an API error fails the intent, nothing sent', async () => {
    const reverting = build(async () => {
      throw new Error('execution reverted');
    });
    await reverting.reconcile();
    const e = await refusal(reverting.buyListing(buy('b1')));
    expect((e as GuardRejectedError).reason).toBe('simulation_reverted');
    expect(store.intents.get('b1')?.state).toBe('failed');

    fake.state.fail = new TransientError('http_503', 'unavailable');
    const e2 = await ex.buyListing(buy('b2')).catch((x: unknown) => x);
    expect(e2).toBeInstanceOf(TransientError);
    expect(store.intents.get('b2')).toMatchObject({ state: 'failed', error: 'http_503' });
    expect(sender.submits).toEqual([]);
  });

  it('a reverted transaction: failed with its hash, the reservation released', async () => {
    sender.outcome = 'reverted';
    const e = await refusal(ex.buyListing(buy('b1')));
    expect(e.code).toBe('tx_reverted');
    const st = ex.status('b1');
    expect(st).toMatchObject({ state: 'failed', error: 'reverted' });
    expect(st?.txHash).toBe(store.transactions.byIntent('b1/fill')[0]?.hash);
    expect(store.spend.list().filter((s) => s.kind === 'price')).toEqual([]);
    expect(store.fills.list()).toEqual([]);
  });

  it('a node refusal at submit fails the intent', async () => {
    sender.outcome = 'refused';
    const e = await refusal(ex.buyListing(buy('b1')));
    expect(e.code).toBe('insufficient_funds');
    expect(store.intents.get('b1')).toMatchObject({ state: 'failed', error: 'insufficient_funds' });
  });
});

describe('reconcile at start', () => {
  it('never-sent intents fail; a journaled transaction is followed and recorded, its plan derived from the raw bytes', async () => {
    // a crash right after the intent row: nothing sent
    store.intents.create({
      id: 'lost',
      strategy: 's',
      kind: 'buy_listing',
      targetKey: 'listing:0xabc',
      payload: { orderHash: '0xabc' },
    });
    // a crash right after the write-ahead journal: the transaction exists, no plan, intent pending
    const payload = {
      orderHash: li.orderHash,
      collection: 'harpoon-apes',
      contract: li.nft.contract.toLowerCase(),
      tokenId: li.nft.identifier.toString(),
      maxPrice: li.maxPrice,
      paymentToken: ZeroAddress,
      feeRecipients: li.feeRecipients,
    };
    store.intents.create({
      id: 'journaled',
      strategy: 's',
      kind: 'buy_listing',
      targetKey: `listing:${li.orderHash}`,
      payload,
    });
    const tx = fulfillmentProposal(ethListing.response);
    await sender.submit('journaled/fill', { to: tx.to, data: tx.data, value: tx.value });

    const restarted = build();
    const report = await restarted.reconcile();
    expect(report.intents.map((o) => [o.intentId, o.state])).toEqual([
      ['lost', 'failed'],
      ['journaled', 'done'],
    ]);
    expect(restarted.status('lost')).toMatchObject({ state: 'failed', error: 'interrupted' });
    expect(restarted.status('journaled')).toMatchObject({ state: 'done', spent: li.maxPrice });
    expect(store.fills.list()).toMatchObject([{ intentId: 'journaled', price: li.maxPrice }]);
    expect(store.spend.list().find((s) => s.kind === 'price')).toMatchObject({
      intentId: 'journaled',
      amount: li.maxPrice,
    });
    // nothing bought again
    expect(sender.submits).toEqual(['journaled/fill']);
    expect((await refusal(restarted.buyListing(buy('again')))).code).toBe('listing_already_filled');
  });

  it('an unresolved transaction stays unknown (not failed) and blocks the listing', async () => {
    sender.outcome = 'pending';
    await ex.buyListing(buy('b1')).catch(() => undefined);
    const restarted = build();
    const report = await restarted.reconcile();
    expect(report.intents).toMatchObject([{ intentId: 'b1', state: 'unknown' }]);
    expect((await refusal(restarted.buyListing(buy('b2')))).code).toBe('target_in_flight');
  });
});

describe('mint', () => {
  const m = mintCase.intent as { drop: string; maxValue: bigint };

  it('settles and records the value spent', async () => {
    const out = await ex.mint({
      intentId: 'm1',
      slug: 'harpoon-genesis',
      drop: m.drop,
      quantity: 1,
      maxValue: m.maxValue,
    });
    expect(out.state).toBe('done');
    expect(out.minted).toEqual([]); // the fake receipt has no Transfer logs
    expect(store.spend.list().find((s) => s.kind === 'price')?.intentId).toBe('m1');
  });

  it('409 and 422 become clear rejections with the server reasons; the intent failed', async () => {
    const details = (status: number, reason: string) => ({
      details: { status, method: 'POST', path: '/api/v2/drops/x/mint', reasons: [reason] },
    });
    fake.state.fail = new RejectedError(
      'http_409',
      'POST → 409',
      details(409, 'Drop x is not currently active: paused'),
    );
    const e409 = await refusal(
      ex.mint({ intentId: 'm1', slug: 'x', drop: m.drop, quantity: 1, maxValue: 1n }),
    );
    expect(e409.code).toBe('mint_not_active');
    expect(e409.message).toBe('drop x is not currently active: Drop x is not currently active: paused');
    fake.state.fail = new RejectedError('http_422', 'POST → 422', details(422, 'Supply exhausted'));
    const e422 = await refusal(
      ex.mint({ intentId: 'm2', slug: 'x', drop: m.drop, quantity: 1, maxValue: 1n }),
    );
    expect(e422.code).toBe('mint_precondition_failed');
    expect(e422.details['reasons']).toEqual(['Supply exhausted']);
    expect(store.intents.get('m1')?.state).toBe('failed');
    expect(store.intents.get('m2')).toMatchObject({ state: 'failed', error: 'mint_precondition_failed' });
    expect(sender.submits).toEqual([]);
  });
});

describe('swap input checks', () => {
  it('needs a floor of our own and a sane slippage, before any request', async () => {
    const base = { fromToken: ZeroAddress, toToken: opts.weth, amountIn: 10n };
    expect((await refusal(ex.swap({ intentId: 's1', ...base, slippageBps: 50 }))).code).toBe('swap_no_floor');
    expect(
      (await refusal(ex.swap({ intentId: 's2', ...base, slippageBps: 9_000, expectedAmountOut: 10n }))).code,
    ).toBe('swap_bad_slippage');
    expect(fake.calls).toEqual([]);
    expect(store.intents.get('s1')).toBeUndefined();
  });
});

describe('signing ahead with the real sender (prepare during the simulation)', () => {
  let chain: FakeChain;
  let real: ReturnType<typeof createTxSender>;

  function buildReal(
    simulate: () => Promise<string> = async () => TRUE,
    over: { fulfillmentGasCeiling?: bigint; estimate?: bigint } = {},
  ): Executor {
    const guard = createCalldataGuard({
      ...opts,
      call: async () => {
        simulations++;
        return simulate();
      },
    });
    return createExecutor({
      api: fake.api,
      guard,
      sender: real,
      rpc: { estimateGas: async () => over.estimate ?? 100_000n },
      store,
      chainId: opts.chainId,
      chain: 'ethereum',
      wallet: real.address,
      protocolAddress: opts.seaport[0] as string,
      ...(over.fulfillmentGasCeiling !== undefined
        ? { fulfillmentGasCeiling: over.fulfillmentGasCeiling }
        : {}),
      onStep: (s) => steps.push(s),
    });
  }

  beforeEach(async () => {
    chain = new FakeChain(opts.chainId);
    chain.automine = true;
    real = createTxSender({
      signer: createFastTxSigner(new Secret(KEY)),
      rpc: chain,
      store,
      feeCaps: { maxFeePerGas: 100_000_000_000n, maxPriorityFeePerGas: 3_000_000_000n },
      pollIntervalMs: 1,
      feeCacheMs: 60_000,
    });
  });

  it('sends the bytes signed ahead (gas limit = the ceiling) once the simulation passed', async () => {
    const ex2 = buildReal();
    await ex2.reconcile();
    const out = await ex2.buyListing(buy('pre1'));
    expect(out.state).toBe('done');
    expect(steps).toContain('prepared');
    expect(steps.indexOf('prepared')).toBeLessThan(steps.indexOf('submitted'));
    expect(chain.sendLog).toHaveLength(1);
    const sent = Transaction.from(chain.sendLog[0] as string);
    expect(sent.gasLimit).toBe(500_000n);
    expect(sent.nonce).toBe(0);
    expect(sent.hash).toBe(out.txHash);
  });

  it('a failed simulation releases the nonce: nothing written or sent, the next buy takes nonce 0', async () => {
    let revert = true;
    const ex2 = buildReal(async () => {
      if (revert) throw new Error('execution reverted');
      return TRUE;
    });
    await ex2.reconcile();
    await expect(ex2.buyListing(buy('pre-fail'))).rejects.toBeInstanceOf(RejectedError);
    expect(chain.sendLog).toHaveLength(0);
    expect(store.transactions.byIntent('pre-fail/fill')).toEqual([]);
    expect(store.intents.get('pre-fail')?.state).toBe('failed');
    expect(real.nextNonce()).toBe(0);
    revert = false;
    const out = await ex2.buyListing(buy('pre-ok'));
    expect(out.state).toBe('done');
    expect(Transaction.from(chain.sendLog[0] as string).nonce).toBe(0);
  });

  it('an estimate above the ceiling: signed again with the estimate (+margin), one transaction', async () => {
    const ex2 = buildReal(undefined, { fulfillmentGasCeiling: 100_000n, estimate: 200_000n });
    await ex2.reconcile();
    const out = await ex2.buyListing(buy('pre-big'));
    expect(out.state).toBe('done');
    expect(chain.sendLog).toHaveLength(1);
    const sent = Transaction.from(chain.sendLog[0] as string);
    expect(sent.gasLimit).toBe(240_000n);
    expect(sent.hash).toBe(out.txHash);
    expect(store.transactions.byIntent('pre-big/fill')).toHaveLength(1);
  });
});
