/**
 * The live executor: every operation that commits money, each one an intent in the store.
 *
 * Write-ahead: the intent row (`pending`) is written before any request; the transaction sender
 * writes the raw signed transaction before it is broadcast; the fill and spend rows and `done`
 * are written in one commit after the receipt. A crash anywhere leaves either nothing sent (the
 * intent is failed at the next reconcile and a new intent may buy) or a transaction in the
 * journal (reconcile follows it to its receipt and records it). Never a second buy of a listing:
 * an intent on a listing that is not failed blocks every other intent on it.
 *
 * Fulfillments are signed ahead while their simulation is in flight (`sender.prepare`: after the
 * guard passed; nonce held, nothing written or sent) and committed (write-ahead, broadcast) only
 * once the simulation passed; a failed simulation releases the nonce.
 *
 * Transactions of one intent are the sender's sub-intents `<intentId>/<step>` (`fill`, `swap`,
 * `mint`, `approve`, `approve-nft`, `approve-weth`); the sender never sends two for one.
 */
import { Interface, Transaction, ZeroAddress } from 'ethers';
import {
  type AcceptOfferIntent,
  type BuyListingIntent,
  fulfillmentProposal,
  type GuardedTx,
  type GuardRejectedError,
  type Intent,
  isGuardRejection,
  type MintIntent,
  type SwapIntent,
} from '../chain/guard/index.ts';
import type { SendResult, Submitted, TxRequest, TxSender } from '../chain/index.ts';
import { FatalError, isBaseError, RejectedError, TransientError } from '../errors/index.ts';
import { silentLogger } from '../observability/index.ts';
import type { TxRequest as SeaportTxRequest } from '../seaport/index.ts';
import { type IntentRecord, type IntentState, JOURNAL_KIND_PREFIX, type TxRecord } from '../store/index.ts';
import {
  type AcceptOfferInput,
  type BuyListingInput,
  EXECUTION_KINDS,
  type ExecutionKind,
  type ExecutionOutcome,
  type ExecutionReconcileReport,
  type ExecutionStep,
  type Executor,
  type ExecutorOptions,
  type MintInput,
  type SwapInput,
} from './types.ts';

const LIVE = new Set(['signed', 'sent', 'unknown']);
const isIncluded = (t: TxRecord) =>
  t.state === 'mined' || (t.state === 'failed' && t.blockNumber !== undefined);
const OPEN: readonly IntentState[] = ['pending', 'sent', 'unknown'];

/** The spend row each kind reserves for what it pays (accepting an offer pays nothing). */
const SPEND_KIND: Record<ExecutionKind, string | undefined> = {
  buy_listing: 'price',
  accept_offer: undefined,
  swap: 'amount_in',
  mint: 'price',
};

/** The step name of each kind's main transaction (its sender sub-intent is `<id>/<step>`). */
const MAIN_STEP: Record<ExecutionKind, string> = {
  buy_listing: 'fill',
  accept_offer: 'fill',
  swap: 'swap',
  mint: 'mint',
};

/** What was decided before the main transaction was sent, kept for recording and reconcile. */
interface Plan {
  readonly spent?: bigint;
  readonly spendKind?: string;
  readonly spendToken?: string;
  readonly proceeds?: bigint;
  readonly facts?: Readonly<Record<string, string | number | boolean>>;
}

const TRANSFER = new Interface([
  'event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)',
]);
const TRANSFER_TOPIC = TRANSFER.getEvent('Transfer')?.topicHash ?? '';

type Prepared = Awaited<ReturnType<NonNullable<TxSender['prepare']>>>;

/** The default gas ceiling of a fulfillment signed ahead (Seaport fills use ~100k–300k). */
const DEFAULT_FULFILLMENT_GAS_CEILING = 500_000n;

/**
 * One timers turn: the RPC client (ethers drains its request queue on a zero timer) puts the
 * simulation on the wire before the CPU-bound signing starts.
 */
const afterDispatch = () =>
  new Promise<void>((r) => {
    setImmediate(() => setTimeout(r, 0));
  });

const subId = (intentId: string, step: string) => `${intentId}/${step}`;
const planId = (intentId: string) => `${intentId}/plan`;
const lower = (a: string) => a.toLowerCase();

function codeOf(e: unknown): string {
  return isBaseError(e) ? e.code : 'error';
}

export function createExecutor(options: ExecutorOptions): Executor {
  const { api, guard, sender, store, rpc } = options;
  const wallet = options.wallet;
  if (lower(wallet) !== lower(sender.address)) {
    throw new FatalError('wallet_mismatch', 'the executor wallet is not the sender wallet');
  }
  if (sender.chainId !== options.chainId) {
    throw new FatalError('chain_mismatch', 'the executor chain id is not the sender chain id');
  }
  const log = (options.logger ?? silentLogger()).child({ component: 'executor' });
  const now = options.now ?? Date.now;
  const defaultStrategy = options.strategy ?? 'executor';
  const marginBps = BigInt(options.gasMarginBps ?? 2_000);
  const step = (s: ExecutionStep, id: string) => options.onStep?.(s, id);
  let reconciled = false;
  /** Intents this process is executing right now. */
  const running = new Set<string>();

  const blockers = store.db.prepare<[string], { id: string; state: IntentState }>(
    "SELECT id, state FROM intents WHERE target_key = ? AND state != 'failed' ORDER BY created_at, rowid",
  );
  const filledTokens = store.db.prepare<[string], { token_id: string }>(
    'SELECT token_id FROM fills WHERE intent_id = ? ORDER BY id',
  );

  // -- records --------------------------------------------------------------------------------

  /**
   * The plan written after the broadcast; if a crash came first, derived again from the raw
   * transaction in the journal (the guard's facts of exactly the bytes that were signed).
   */
  function planOf(intentId: string): Plan {
    const p = store.intents.get(planId(intentId))?.payload;
    if (p && typeof p === 'object') return p as Plan;
    const rec = store.intents.get(intentId);
    if (!rec || !(EXECUTION_KINDS as readonly string[]).includes(rec.kind)) return {};
    const txs = mainTxs(rec);
    const tx = txs.find(isIncluded) ?? txs[txs.length - 1];
    return tx ? derivePlan(rec, tx) : {};
  }

  function derivePlan(rec: IntentRecord, tx: TxRecord): Plan {
    const kind = rec.kind as ExecutionKind;
    const p = rec.payload as Record<string, unknown>;
    const signed = Transaction.from(tx.raw);
    const proposed = {
      chainId: options.chainId,
      to: signed.to ?? '',
      data: signed.data,
      value: signed.value,
    };
    const facts = (): Readonly<Record<string, string | number | boolean>> => {
      try {
        return (guard.check(proposed, intentFromPayload(kind, p)) as GuardedTx[])[0]?.facts ?? {};
      } catch {
        return {};
      }
    };
    const token = (k: string) => String(p[k] ?? ZeroAddress);
    switch (kind) {
      case 'buy_listing': {
        const f = facts();
        const spent = f['paid'] !== undefined ? BigInt(f['paid']) : signed.value;
        return { spent, spendKind: 'price', spendToken: token('paymentToken'), facts: f };
      }
      case 'accept_offer': {
        const f = facts();
        return f['proceeds'] !== undefined ? { proceeds: BigInt(f['proceeds']), facts: f } : { facts: f };
      }
      case 'swap':
        return {
          spent: p['amountIn'] as bigint,
          spendKind: 'amount_in',
          spendToken: token('fromToken'),
        };
      case 'mint':
        return { spent: signed.value, spendKind: 'price', spendToken: ZeroAddress };
    }
  }

  /** The guard intent of a stored execution intent (for re-deriving facts from the journal). */
  function intentFromPayload(kind: ExecutionKind, p: Record<string, unknown>): Intent {
    const nft = { contract: String(p['contract']), identifier: BigInt(String(p['tokenId'] ?? '0')) };
    const quantity = typeof p['quantity'] === 'bigint' ? { quantity: p['quantity'] } : {};
    const fees = Array.isArray(p['feeRecipients']) ? { feeRecipients: p['feeRecipients'] as string[] } : {};
    switch (kind) {
      case 'buy_listing':
        return {
          kind,
          chainId: options.chainId,
          nft,
          orderHash: String(p['orderHash']),
          maxPrice: p['maxPrice'] as bigint,
          paymentToken: String(p['paymentToken']),
          recipient: wallet,
          ...quantity,
          ...fees,
        };
      case 'accept_offer':
        return {
          kind,
          chainId: options.chainId,
          nft,
          orderHash: String(p['orderHash']),
          minProceeds: p['minProceeds'] as bigint,
          paymentToken: String(p['paymentToken']),
          recipient: wallet,
          ...quantity,
          ...fees,
        };
      case 'swap':
        return {
          kind,
          chainId: options.chainId,
          fromToken: String(p['fromToken']),
          toToken: String(p['toToken']),
          amountIn: p['amountIn'] as bigint,
          minAmountOut: p['minAmountOut'] as bigint,
          recipient: wallet,
        };
      case 'mint':
        return {
          kind,
          chainId: options.chainId,
          drop: String(p['drop']),
          quantity: BigInt(p['quantity'] as number),
          maxValue: p['maxValue'] as bigint,
          recipient: wallet,
        };
    }
  }

  function reserve(rec: { id: string; strategy: string }, plan: Plan): void {
    if (plan.spendKind !== undefined && plan.spent !== undefined && plan.spendToken !== undefined) {
      store.spend.record({
        strategy: rec.strategy,
        intentId: rec.id,
        kind: plan.spendKind,
        token: plan.spendToken,
        amount: plan.spent,
        at: now(),
      });
    }
  }

  function mainTxs(rec: IntentRecord): TxRecord[] {
    return store.transactions.byIntent(subId(rec.id, MAIN_STEP[rec.kind as ExecutionKind]));
  }

  /** The execution layer's row of an intent: not the engine's journal row before it is claimed. */
  function executionRow(intentId: string): IntentRecord | undefined {
    const rec = store.intents.get(intentId);
    return rec === undefined || rec.kind.startsWith(JOURNAL_KIND_PREFIX) ? undefined : rec;
  }

  function outcomeOf(intentId: string, replayed = false): ExecutionOutcome | undefined {
    const rec = executionRow(intentId);
    if (!rec) return undefined;
    const kind = rec.kind as ExecutionKind;
    const txs = mainTxs(rec);
    const tx = txs.find(isIncluded) ?? txs[txs.length - 1];
    const plan = planOf(intentId);
    const minted =
      kind === 'mint' && rec.state === 'done' ? filledTokens.all(intentId).map((r) => r.token_id) : [];
    return {
      intentId,
      kind,
      state: rec.state,
      ...(tx ? { txHash: tx.hash } : {}),
      ...(tx?.blockNumber !== undefined ? { blockNumber: tx.blockNumber } : {}),
      ...(plan.spent !== undefined ? { spent: plan.spent } : {}),
      ...(plan.proceeds !== undefined ? { proceeds: plan.proceeds } : {}),
      ...(kind === 'mint' && rec.state === 'done' ? { minted } : {}),
      ...(rec.error !== undefined ? { error: rec.error } : {}),
      ...(replayed ? { replayed: true } : {}),
    };
  }

  function setOpen(intentId: string, state: 'sent' | 'unknown'): void {
    const cur = store.intents.get(intentId);
    if (cur && OPEN.includes(cur.state) && cur.state !== state) store.intents.setState(intentId, state);
  }

  /** Failed: the reservation is released. Durable (a later buy of the listing depends on it). */
  function fail(intentId: string, code: string): void {
    store.transaction(() => {
      const cur = store.intents.get(intentId);
      if (!cur || cur.state === 'done' || cur.state === 'failed') return;
      store.intents.setState(intentId, 'failed', code);
      const spendKind = SPEND_KIND[cur.kind as ExecutionKind];
      if (spendKind !== undefined) store.spend.remove(intentId, spendKind);
    });
    log.warn({ intentId, code }, 'execution failed');
  }

  /**
   * Writes the intent (`pending`) unless another intent holds the same target. Not fsynced: the
   * sender's write-ahead commit (fsynced) precedes any broadcast and carries it to disk.
   */
  function begin(
    intentId: string,
    kind: ExecutionKind,
    strategy: string | undefined,
    targetKey: string,
    payload: unknown,
    /** `ever`: a done intent on the target blocks it for good (a listing); `open`: only one in flight. */
    exclusive: 'ever' | 'open' | false,
  ): void {
    store.transaction(
      () => {
        if (exclusive) {
          const held = blockers.all(targetKey).filter((h) => exclusive === 'ever' || h.state !== 'done');
          const first = held[0];
          if (first) {
            const done = held.find((h) => h.state === 'done');
            throw new RejectedError(
              done ? `${kind === 'buy_listing' ? 'listing' : 'order'}_already_filled` : 'target_in_flight',
              done
                ? `intent ${done.id} already executed ${targetKey}: not executing it again`
                : `intent ${first.id} on ${targetKey} is ${first.state}: not executing it twice`,
              { details: { targetKey, by: (done ?? first).id, state: (done ?? first).state } },
            );
          }
        }
        // The engine's journal row of this intent becomes the execution row (one row per intent).
        if (
          !store.intents.claim(intentId, { kind, targetKey, payload }) &&
          !store.intents.create({
            id: intentId,
            strategy: strategy ?? defaultStrategy,
            kind,
            targetKey,
            payload,
          })
        ) {
          throw new RejectedError('intent_exists', `intent ${intentId} exists`);
        }
      },
      { durable: false },
    );
    step('intent', intentId);
  }

  /** A repeated intent id: the recorded outcome, never a second execution. */
  async function replay(intentId: string, kind: ExecutionKind): Promise<ExecutionOutcome | undefined> {
    const rec = executionRow(intentId);
    if (!rec) return undefined;
    if (rec.kind !== kind) {
      throw new RejectedError('intent_kind_mismatch', `intent ${intentId} is a ${rec.kind}, not a ${kind}`);
    }
    if (rec.state === 'done') return outcomeOf(intentId, true);
    if (rec.state === 'failed') {
      throw new RejectedError('intent_failed', `intent ${intentId} failed (${rec.error ?? 'unknown'})`, {
        details: { intentId, error: rec.error ?? null },
      });
    }
    if (running.has(intentId)) {
      throw new RejectedError('intent_in_flight', `intent ${intentId} is being executed`);
    }
    const out = await resolve(rec, true);
    if (out.state === 'failed') {
      throw new RejectedError('intent_failed', `intent ${intentId} failed (${out.error ?? 'unknown'})`, {
        details: { intentId, error: out.error ?? null, hash: out.txHash ?? null },
      });
    }
    return out;
  }

  function requireReconciled(): void {
    if (!reconciled) {
      throw new FatalError('not_reconciled', 'reconcile() must finish before the executor executes anything');
    }
  }

  // -- transactions ---------------------------------------------------------------------------

  async function gasFor(tx: GuardedTx): Promise<bigint> {
    if (options.fulfillmentGasLimit !== undefined) return options.fulfillmentGasLimit;
    const est = await rpc.estimateGas({ from: wallet, to: tx.to, data: tx.data, value: tx.value });
    return (est * (10_000n + marginBps)) / 10_000n;
  }

  const presign = options.presign ?? true;
  const gasCeiling =
    options.fulfillmentGasLimit ?? options.fulfillmentGasCeiling ?? DEFAULT_FULFILLMENT_GAS_CEILING;

  /**
   * A guarded fulfillment: simulation ‖ gas estimate ‖ signing ahead (the guard passed; nothing is
   * written or sent until the simulation passed), then write-ahead + broadcast of the pre-signed
   * bytes (signed again if the estimate needs more gas than the ceiling). A failed simulation
   * releases the prepared nonce: nothing was persisted, so no gap.
   */
  async function simulateAndSubmit(
    rec: { id: string; kind: ExecutionKind },
    checked: GuardedTx,
    intent: Intent,
  ): Promise<[GuardedTx, Submitted]> {
    const simulation = simulateAndEstimate(checked, intent);
    const prepare = sender.prepare?.bind(sender);
    if (!presign || !prepare) {
      const [tx, gasLimit] = await simulation;
      step('simulated', rec.id);
      return [tx, await sender.submit(subId(rec.id, MAIN_STEP[rec.kind]), requestOf(tx, gasLimit))];
    }
    simulation.catch(() => undefined); // awaited below; no unhandled rejection meanwhile
    await afterDispatch();
    const preparing = prepare(subId(rec.id, MAIN_STEP[rec.kind]), requestOf(checked, gasCeiling)).then(
      (p): Prepared | undefined => {
        try {
          step('prepared', rec.id);
        } catch (e) {
          p.release(); // never leave the wallet held
          throw e;
        }
        return p;
      },
      (e: unknown): undefined => {
        log.warn({ intentId: rec.id, code: codeOf(e) }, 'signing ahead failed; signing after the simulation');
        return undefined;
      },
    );
    let tx: GuardedTx;
    let gasLimit: bigint;
    try {
      [tx, gasLimit] = await simulation;
    } catch (e) {
      (await preparing)?.release();
      throw e;
    }
    step('simulated', rec.id);
    const prepared = await preparing;
    const same = tx.to === checked.to && tx.data === checked.data && tx.value === checked.value;
    if (prepared && same) return [tx, await prepared.commit({ gasLimit })];
    prepared?.release(); // (the simulated transaction is what gets signed, never anything else)
    return [tx, await sender.submit(subId(rec.id, MAIN_STEP[rec.kind]), requestOf(tx, gasLimit))];
  }

  function requestOf(tx: GuardedTx, gasLimit: bigint | undefined): TxRequest {
    return { to: tx.to, data: tx.data, value: tx.value, ...(gasLimit !== undefined ? { gasLimit } : {}) };
  }

  /** Simulation and gas estimate at once (one round trip of latency); the simulation's refusal wins. */
  async function simulateAndEstimate(tx: GuardedTx, intent: Intent): Promise<[GuardedTx, bigint]> {
    const [sim, gas] = await Promise.allSettled([guard.simulate(tx, intent), gasFor(tx)]);
    if (sim.status === 'rejected') throw sim.reason;
    if (gas.status === 'rejected') {
      const e = gas.reason;
      if (e instanceof RejectedError) {
        throw new RejectedError('estimate_failed', 'the transaction would revert (gas estimation failed)', {
          details: { reason: e.shortMessage },
        });
      }
      throw e;
    }
    return [sim.value, gas.value];
  }

  /** An approval built locally (src/seaport), sent and mined before the step that needs it. */
  async function approve(intentId: string, name: string, req: SeaportTxRequest): Promise<void> {
    const r = await sender.send(subId(intentId, name), { to: req.to, data: req.data, value: req.value });
    if (r.status !== 'success') {
      throw new RejectedError('approval_reverted', `the approval ${name} reverted`, {
        details: { intentId, hash: r.hash },
      });
    }
    const gas = r.receipt.gasUsed * r.receipt.effectiveGasPrice;
    const strategy = store.intents.get(intentId)?.strategy ?? defaultStrategy;
    if (gas > 0n) {
      store.spend.record({
        strategy,
        intentId,
        kind: `gas:${name}`,
        token: ZeroAddress,
        amount: gas,
        at: now(),
      });
    }
    log.info({ intentId, hash: r.hash, purpose: req.purpose }, 'approval mined');
  }

  /**
   * Sign + write ahead + broadcast (the sender), then one commit after the broadcast: the plan,
   * the spend reservation and `sent` (kept off the path to eth_sendRawTransaction; a crash before
   * it loses nothing: reconcile derives the plan from the journal). Then the receipt.
   */
  async function sendMain(
    rec: { id: string; kind: ExecutionKind; strategy: string },
    tx: GuardedTx,
    gasLimit: bigint | undefined,
    plan: Plan,
  ): Promise<ExecutionOutcome> {
    const submitted = await sender.submit(subId(rec.id, MAIN_STEP[rec.kind]), requestOf(tx, gasLimit));
    return afterSubmit(rec, submitted, plan);
  }

  /** After the broadcast: plan, reservation and `sent` in one commit, then the receipt and the record. */
  async function afterSubmit(
    rec: { id: string; kind: ExecutionKind; strategy: string },
    submitted: Submitted,
    plan: Plan,
  ): Promise<ExecutionOutcome> {
    const sub = subId(rec.id, MAIN_STEP[rec.kind]);
    store.transaction(
      () => {
        store.intents.create({
          id: planId(rec.id),
          strategy: rec.strategy,
          kind: 'plan',
          targetKey: `plan:${rec.id}`,
          payload: plan,
          state: 'done',
        });
        reserve(rec, plan);
        setOpen(rec.id, submitted.state === 'unknown' ? 'unknown' : 'sent');
      },
      { durable: false },
    );
    step('submitted', rec.id);
    const res = await sender.wait(sub);
    step('receipt', rec.id);
    const stored = store.intents.get(rec.id);
    if (!stored) throw new FatalError('store_write_lost', `intent ${rec.id} cannot be read back`);
    settle(stored, res);
    const out = outcomeOf(rec.id) as ExecutionOutcome;
    if (out.state === 'failed') {
      throw new RejectedError('tx_reverted', `the ${rec.kind} transaction reverted`, {
        details: { intentId: rec.id, hash: res.hash },
      });
    }
    return out;
  }

  /** Records an included main transaction: fill/spend rows and `done`, or `failed` if it reverted. */
  function settle(rec: IntentRecord, res: SendResult): void {
    if (rec.state === 'done' || rec.state === 'failed') return;
    if (res.status !== 'success') {
      fail(rec.id, 'reverted');
      return;
    }
    const plan = planOf(rec.id);
    const p = rec.payload as Record<string, unknown>;
    const receipt = res.receipt;
    store.transaction(() => {
      reserve(rec, plan);
      const base = {
        intentId: rec.id,
        txHash: res.hash,
        blockNumber: receipt.blockNumber,
        filledAt: now(),
      };
      switch (rec.kind as ExecutionKind) {
        case 'buy_listing':
          store.fills.record({
            ...base,
            orderHash: String(p['orderHash']),
            side: 'buy',
            collection: String(p['collection']),
            contract: String(p['contract']),
            tokenId: String(p['tokenId']),
            ...(typeof p['quantity'] === 'bigint' ? { quantity: p['quantity'] } : {}),
            price: plan.spent ?? 0n,
            token: String(p['paymentToken']),
          });
          break;
        case 'accept_offer': {
          const gross = p['offerPrice'] as bigint;
          const proceeds = plan.proceeds ?? gross;
          store.fills.record({
            ...base,
            orderHash: String(p['orderHash']),
            side: 'sell',
            collection: String(p['collection']),
            contract: String(p['contract']),
            tokenId: String(p['tokenId']),
            ...(typeof p['quantity'] === 'bigint' ? { quantity: p['quantity'] } : {}),
            price: gross,
            token: String(p['paymentToken']),
            fees: gross > proceeds ? gross - proceeds : 0n,
          });
          break;
        }
        case 'mint': {
          const drop = lower(String(p['drop']));
          const ids = receipt.logs
            .filter(
              (l) =>
                lower(l.address) === drop &&
                l.topics.length === 4 &&
                l.topics[0] === TRANSFER_TOPIC &&
                BigInt(l.topics[1] as string) === 0n &&
                BigInt(l.topics[2] as string) === BigInt(wallet),
            )
            .map((l) => BigInt(l.topics[3] as string).toString());
          const each = ids.length > 0 ? (plan.spent ?? 0n) / BigInt(ids.length) : 0n;
          for (const tokenId of ids) {
            store.fills.record({
              ...base,
              side: 'buy',
              collection: String(p['slug']),
              contract: drop,
              tokenId,
              price: each,
              token: ZeroAddress,
            });
          }
          break;
        }
        case 'swap':
          break;
      }
      const gas = receipt.gasUsed * receipt.effectiveGasPrice;
      if (gas > 0n) {
        store.spend.record({
          strategy: rec.strategy,
          intentId: rec.id,
          kind: 'gas',
          token: ZeroAddress,
          amount: gas,
          at: now(),
        });
      }
      store.intents.setState(rec.id, 'done');
    });
    step('recorded', rec.id);
    log.info({ intentId: rec.id, kind: rec.kind, hash: res.hash, block: receipt.blockNumber }, 'executed');
  }

  /**
   * Settles an open intent from the journal: no main transaction ever signed → failed
   * (`interrupted`); one included → recorded; live → followed to its receipt (the sender re-sends
   * the same raw bytes). Never sends a new main transaction.
   */
  async function resolve(rec: IntentRecord, rethrow = false): Promise<ExecutionOutcome> {
    const txs = mainTxs(rec);
    const live = txs.some((t) => LIVE.has(t.state));
    const included = txs.some(isIncluded);
    if (!live && !included) {
      const last = txs[txs.length - 1];
      fail(rec.id, last ? (last.error ?? 'tx_failed') : 'interrupted');
      return outcomeOf(rec.id) as ExecutionOutcome;
    }
    if (rec.state === 'pending') setOpen(rec.id, 'sent');
    try {
      settle(rec, await sender.wait(subId(rec.id, MAIN_STEP[rec.kind as ExecutionKind])));
    } catch (e) {
      if (e instanceof RejectedError) fail(rec.id, e.code);
      else {
        const cur = store.intents.get(rec.id);
        if (cur && OPEN.includes(cur.state)) setOpen(rec.id, 'unknown');
        await describeListing(rec);
        if (rethrow) throw e;
        log.warn({ intentId: rec.id, code: codeOf(e) }, 'execution still unresolved');
      }
    }
    return outcomeOf(rec.id) as ExecutionOutcome;
  }

  /** Logs Seaport's view of a listing whose buy is unresolved (filled by someone, cancelled…). */
  async function describeListing(rec: IntentRecord): Promise<void> {
    if (rec.kind !== 'buy_listing' || !options.orders) return;
    const hash = String((rec.payload as Record<string, unknown>)['orderHash']);
    try {
      const s = await options.orders.getOrderStatus(hash);
      log.warn(
        {
          intentId: rec.id,
          orderHash: hash,
          cancelled: s.isCancelled,
          filled: s.totalFilled.toString(),
          size: s.totalSize.toString(),
        },
        'listing of an unresolved buy',
      );
    } catch (e) {
      log.warn({ intentId: rec.id, code: codeOf(e) }, 'order status unavailable');
    }
  }

  /** Runs an operation's body; on error, fails the intent unless a main transaction may be out. */
  async function run(
    intentId: string,
    kind: ExecutionKind,
    body: () => Promise<ExecutionOutcome>,
  ): Promise<ExecutionOutcome> {
    running.add(intentId);
    try {
      return await body();
    } catch (e) {
      const rec = executionRow(intentId);
      if (rec && OPEN.includes(rec.state)) {
        const txs = store.transactions.byIntent(subId(intentId, MAIN_STEP[kind]));
        const out = txs.some((t) => LIVE.has(t.state) || isIncluded(t));
        if (!out) fail(intentId, codeOf(e));
        else if (e instanceof RejectedError) fail(intentId, e.code);
        else if (rec.state === 'pending') setOpen(intentId, 'unknown'); // journaled, outcome not known
      }
      throw e;
    } finally {
      running.delete(intentId);
    }
  }

  // -- operations -----------------------------------------------------------------------------

  /** What the guard checks of a fill, whether we buy a listing or accept an offer. */
  function fillTerms(input: Omit<BuyListingInput | AcceptOfferInput, 'intentId'>, orderHash: string) {
    return {
      chainId: options.chainId,
      nft: {
        contract: input.nft.contract,
        identifier: input.nft.tokenId,
        ...(input.nft.standard ? { standard: input.nft.standard } : {}),
      },
      orderHash,
      paymentToken: input.paymentToken,
      recipient: wallet,
      ...(input.quantity !== undefined ? { quantity: input.quantity } : {}),
      ...(input.feeRecipients ? { feeRecipients: input.feeRecipients } : {}),
    };
  }

  const buyIntent = (input: Omit<BuyListingInput, 'intentId'>, orderHash: string): BuyListingIntent => ({
    kind: 'buy_listing',
    ...fillTerms(input, orderHash),
    maxPrice: input.maxPrice,
  });

  /**
   * The guard's verdict on a fill's fulfillment data against `intent`, and the intent it passed.
   * A payment to an address the guard does not know (neither the counterparty nor a fee recipient
   * of the collection as last read) may be a fee its creator moved since that read: with
   * `renew`, the collection's fee recipients are read again and, when the new read names that
   * address, the same data is checked once more against them — nothing fetched again, nothing
   * signed before; the journal's intent (`intentId`) then carries them. Otherwise the refusal stands.
   */
  async function checkFill<I extends BuyListingIntent | AcceptOfferIntent>(
    proposal: ReturnType<typeof fulfillmentProposal>,
    intent: I,
    renew: (() => Promise<readonly string[]>) | undefined,
    intentId?: string,
  ): Promise<{ checked: GuardedTx; intent: I }> {
    // a refusal for an unknown fee recipient is told only once it stands (the fees read again
    // may name it: then the fill passes, and the status counts no refusal)
    const renewable = (e: GuardRejectedError) =>
      renew !== undefined && e.reason === 'unknown_consideration_recipient';
    try {
      return { checked: guard.check(proposal, intent, renewable)[0] as GuardedTx, intent };
    } catch (e) {
      if (renew === undefined || !isGuardRejection(e) || !renewable(e)) throw e;
      const stands = (): never => {
        guard.tell(e, intent);
        throw e;
      };
      const unknown = lower(String(e.details['recipient'] ?? ''));
      let recipients: string[];
      try {
        recipients = (await renew()).map(lower);
      } catch (err) {
        log.warn(
          { intentId, code: codeOf(err) },
          'reading the fee recipients again failed: the refusal stands',
        );
        return stands();
      }
      const before = new Set((intent.feeRecipients ?? []).map(lower));
      if (unknown === '' || before.has(unknown) || !recipients.includes(unknown)) return stands();
      const renewed = { ...intent, feeRecipients: [...new Set([...before, ...recipients])] };
      const checked = guard.check(proposal, renewed)[0] as GuardedTx;
      log.info(
        { intentId, orderHash: intent.orderHash, recipient: unknown },
        'a fee recipient read again (the creator moved their fee): the fill passes the guard',
      );
      if (intentId !== undefined) {
        const rec = store.intents.get(intentId);
        if (rec !== undefined)
          store.intents.setPayload(intentId, {
            ...(rec.payload as Record<string, unknown>),
            feeRecipients: renewed.feeRecipients,
          });
      }
      return { checked, intent: renewed };
    }
  }

  /** The listing's fulfillment data from the API, then the guard's verdict on it (see checkFill). */
  async function guardedBuy(
    input: Omit<BuyListingInput, 'intentId'> & { readonly intentId?: string },
    intent: BuyListingIntent,
    onFetched: () => void = () => undefined,
  ): Promise<{ checked: GuardedTx; intent: BuyListingIntent }> {
    const protocol = input.protocolAddress ?? options.protocolAddress;
    const response = await api.listings.fulfillmentData({
      listing: { hash: intent.orderHash as string, chain: options.chain, protocol_address: protocol },
      fulfiller: { address: wallet },
      ...(input.quantity !== undefined ? { units_to_fill: Number(input.quantity) } : {}),
    });
    onFetched();
    return checkFill(fulfillmentProposal(response), intent, input.renewFeeRecipients, input.intentId);
  }

  const acceptIntent = (input: Omit<AcceptOfferInput, 'intentId'>, orderHash: string): AcceptOfferIntent => ({
    kind: 'accept_offer',
    ...fillTerms(input, orderHash),
    minProceeds: input.minProceeds,
  });

  /** The offer's fulfillment data from the API, then the guard's verdict on it (see checkFill). */
  async function guardedAccept(
    input: Omit<AcceptOfferInput, 'intentId'> & { readonly intentId?: string },
    intent: AcceptOfferIntent,
    onFetched: () => void = () => undefined,
  ): Promise<{ checked: GuardedTx; intent: AcceptOfferIntent }> {
    const protocol = input.protocolAddress ?? options.protocolAddress;
    const response = await api.offers.fulfillmentData({
      offer: { hash: intent.orderHash as string, chain: options.chain, protocol_address: protocol },
      fulfiller: { address: wallet },
      consideration: { asset_contract_address: input.nft.contract, token_id: input.nft.tokenId.toString() },
      units_to_fill: Number(input.quantity ?? 1n),
    });
    onFetched();
    return checkFill(fulfillmentProposal(response), intent, input.renewFeeRecipients, input.intentId);
  }

  async function buyListing(input: BuyListingInput): Promise<ExecutionOutcome> {
    requireReconciled();
    const orderHash = lower(input.orderHash);
    const replayed = await replay(input.intentId, 'buy_listing');
    if (replayed) return replayed;
    const protocol = input.protocolAddress ?? options.protocolAddress;
    const intent = buyIntent(input, orderHash);
    const strategy = input.strategy ?? defaultStrategy;
    begin(
      input.intentId,
      'buy_listing',
      strategy,
      `listing:${orderHash}`,
      {
        orderHash,
        collection: input.collection,
        contract: lower(input.nft.contract),
        tokenId: input.nft.tokenId.toString(),
        maxPrice: input.maxPrice,
        paymentToken: lower(input.paymentToken),
        protocolAddress: lower(protocol),
        ...(input.feeRecipients ? { feeRecipients: input.feeRecipients.map(lower) } : {}),
        ...(input.quantity !== undefined ? { quantity: input.quantity } : {}),
      },
      'ever',
    );
    return run(input.intentId, 'buy_listing', async () => {
      const { checked, intent: passed } = await guardedBuy(input, intent, () =>
        step('fulfillment', input.intentId),
      );
      step('guard', input.intentId);
      const rec = { id: input.intentId, kind: 'buy_listing' as const, strategy };
      const [tx, submitted] = await simulateAndSubmit(rec, checked, passed);
      const paid = tx.facts['paid'] !== undefined ? BigInt(tx.facts['paid']) : tx.value;
      return afterSubmit(rec, submitted, {
        spent: paid,
        spendKind: 'price',
        spendToken: lower(input.paymentToken),
        facts: tx.facts,
      });
    });
  }

  async function acceptOffer(input: AcceptOfferInput): Promise<ExecutionOutcome> {
    requireReconciled();
    const orderHash = lower(input.orderHash);
    const replayed = await replay(input.intentId, 'accept_offer');
    if (replayed) return replayed;
    const protocol = input.protocolAddress ?? options.protocolAddress;
    const intent = acceptIntent(input, orderHash);
    const strategy = input.strategy ?? defaultStrategy;
    begin(
      input.intentId,
      'accept_offer',
      strategy,
      `accept:${orderHash}:${lower(input.nft.contract)}:${input.nft.tokenId}`,
      {
        orderHash,
        collection: input.collection,
        contract: lower(input.nft.contract),
        tokenId: input.nft.tokenId.toString(),
        offerPrice: input.offerPrice,
        minProceeds: input.minProceeds,
        paymentToken: lower(input.paymentToken),
        protocolAddress: lower(protocol),
        ...(input.feeRecipients ? { feeRecipients: input.feeRecipients.map(lower) } : {}),
        ...(input.quantity !== undefined ? { quantity: input.quantity } : {}),
      },
      'open',
    );
    return run(input.intentId, 'accept_offer', async () => {
      const { checked, intent: passed } = await guardedAccept(input, intent, () =>
        step('fulfillment', input.intentId),
      );
      step('guard', input.intentId);
      const proceeds = BigInt(checked.facts['proceeds'] ?? 0);
      if (options.approvals) {
        const nftApproval = await options.approvals.nft(input.nft.contract, wallet);
        if (nftApproval) await approve(input.intentId, 'approve-nft', nftApproval);
        // fee items are paid out of the proceeds: Seaport pulls them from us through the conduit
        const fees = input.offerPrice - proceeds;
        if (fees > 0n) {
          const wethApproval = await options.approvals.weth(input.paymentToken, wallet, fees);
          if (wethApproval) await approve(input.intentId, 'approve-weth', wethApproval);
        }
      }
      const rec = { id: input.intentId, kind: 'accept_offer' as const, strategy };
      const [tx, submitted] = await simulateAndSubmit(rec, checked, passed);
      return afterSubmit(rec, submitted, { proceeds, facts: tx.facts });
    });
  }

  async function swap(input: SwapInput): Promise<ExecutionOutcome> {
    requireReconciled();
    const replayed = await replay(input.intentId, 'swap');
    if (replayed) return replayed;
    if (!Number.isInteger(input.slippageBps) || input.slippageBps < 0 || input.slippageBps > 5_000) {
      throw new RejectedError('swap_bad_slippage', 'slippageBps must be an integer from 0 to 5,000');
    }
    const floor =
      input.minAmountOut ??
      (input.expectedAmountOut !== undefined
        ? (input.expectedAmountOut * BigInt(10_000 - input.slippageBps)) / 10_000n
        : undefined);
    if (floor === undefined || floor <= 0n) {
      throw new RejectedError(
        'swap_no_floor',
        'a swap needs minAmountOut or expectedAmountOut (the quote is not trusted for it)',
      );
    }
    const intent: SwapIntent = {
      kind: 'swap',
      chainId: options.chainId,
      fromToken: input.fromToken,
      toToken: input.toToken,
      amountIn: input.amountIn,
      minAmountOut: floor,
      recipient: wallet,
    };
    const strategy = input.strategy ?? defaultStrategy;
    begin(
      input.intentId,
      'swap',
      strategy,
      `swap:${input.intentId}`,
      {
        fromToken: lower(input.fromToken),
        toToken: lower(input.toToken),
        amountIn: input.amountIn,
        minAmountOut: floor,
        slippageBps: input.slippageBps,
      },
      false,
    );
    return run(input.intentId, 'swap', async () => {
      const response = await api.swap.quote({
        from_chain: options.chain,
        from_address: input.fromToken,
        to_chain: options.chain,
        to_address: input.toToken,
        quantity: input.amountIn,
        address: wallet,
        slippage: input.slippageBps / 10_000,
      });
      step('fulfillment', input.intentId);
      const steps = await guard.guardSwapQuote(response, intent);
      step('guard', input.intentId);
      let main = steps[steps.length - 1] as GuardedTx;
      if (steps.length === 2) {
        const approval = steps[0] as GuardedTx;
        await approve(input.intentId, 'approve', { ...approval, purpose: 'swap approval' });
        main = await guard.simulate(main, intent);
      }
      step('simulated', input.intentId);
      return sendMain({ id: input.intentId, kind: 'swap', strategy }, main, undefined, {
        spent: input.amountIn,
        spendKind: 'amount_in',
        spendToken: lower(input.fromToken),
        facts: main.facts,
      });
    });
  }

  async function mint(input: MintInput): Promise<ExecutionOutcome> {
    requireReconciled();
    const replayed = await replay(input.intentId, 'mint');
    if (replayed) return replayed;
    const intent: MintIntent = {
      kind: 'mint',
      chainId: options.chainId,
      drop: input.drop,
      quantity: BigInt(input.quantity),
      maxValue: input.maxValue,
      recipient: wallet,
    };
    const strategy = input.strategy ?? defaultStrategy;
    begin(
      input.intentId,
      'mint',
      strategy,
      `mint:${input.slug}:${input.intentId}`,
      { slug: input.slug, drop: lower(input.drop), quantity: input.quantity, maxValue: input.maxValue },
      false,
    );
    return run(input.intentId, 'mint', async () => {
      let response: unknown;
      try {
        response = await api.drops.mint(input.slug, { minter: wallet, quantity: input.quantity });
      } catch (e) {
        throw mintRejection(input.slug, e);
      }
      step('fulfillment', input.intentId);
      const tx = await guard.guardMint(response, intent);
      step('guard', input.intentId);
      step('simulated', input.intentId);
      return sendMain({ id: input.intentId, kind: 'mint', strategy }, tx, undefined, {
        spent: tx.value,
        spendKind: 'price',
        spendToken: ZeroAddress,
        facts: tx.facts,
      });
    });
  }

  async function reconcile(): Promise<ExecutionReconcileReport> {
    const report = await sender.reconcile();
    const out: ExecutionOutcome[] = [];
    for (const rec of store.intents.listByState(...OPEN)) {
      if (!(EXECUTION_KINDS as readonly string[]).includes(rec.kind)) continue;
      const o = await resolve(rec);
      log.info({ intentId: rec.id, kind: rec.kind, state: o.state, hash: o.txHash ?? null }, 'reconciled');
      out.push(o);
    }
    reconciled = true;
    return { sender: report, intents: out };
  }

  return {
    wallet,
    reconcile,
    buyListing,
    acceptOffer,
    checkFill: async (input) =>
      (input.kind === 'buy_listing'
        ? await guardedBuy(input, buyIntent(input, lower(input.orderHash)))
        : await guardedAccept(input, acceptIntent(input, lower(input.orderHash)))
      ).checked,
    swap,
    mint,
    status: (intentId) => outcomeOf(intentId),
  };
}

/** The API's 409 and 422 of a drop mint as clear rejections with the server's reasons. */
function mintRejection(slug: string, e: unknown): unknown {
  if (!(e instanceof RejectedError)) return e;
  const reasons = Array.isArray(e.details['reasons']) ? (e.details['reasons'] as unknown[]).map(String) : [];
  const why = reasons.length > 0 ? reasons.join('; ') : e.shortMessage;
  if (e.code === 'http_409') {
    return new RejectedError('mint_not_active', `drop ${slug} is not currently active: ${why}`, {
      details: { slug, status: 409, reasons },
      cause: e,
    });
  }
  if (e.code === 'http_422') {
    return new RejectedError('mint_precondition_failed', `drop ${slug}: a mint precondition failed: ${why}`, {
      details: { slug, status: 422, reasons },
      cause: e,
    });
  }
  return e;
}

/** True for errors after which the outcome is not known (a transaction may be out). */
export function isUnresolved(e: unknown): boolean {
  return e instanceof TransientError && e.maybeProcessed;
}
