/**
 * Snipe benchmark: the executor's buy path from a listing event in memory to
 * `eth_sendRawTransaction` issued, against the sandbox (real HTTP API, anvil, Seaport 1.6).
 *
 *   npm run bench -- snipe            # 200 buys
 *   npm run bench -- snipe --quick    # 40 buys (or BENCH_QUICK=1)
 *
 * Each sample is one `executor.buyListing` of a distinct seeded listing (ETH or WETH; ERC-721 or
 * all units of an ERC-1155 listing), wired as
 * the daemon wires it: API client through the rate-limit scheduler (group fulfillment, top
 * priority), calldata guard, `eth_call` simulation with the gas estimate beside it, the
 * write-ahead sender (fees cached, SQLite store on disk, synchronous=FULL), the ethers signer.
 * Split:
 * - apiMs: the fulfillment_data call (scheduler + HTTP round trip + JSON), intent written → answer;
 * - guardMs: the response decoded and checked against the intent;
 * - simulationMs: eth_call ‖ eth_estimateGas (one round trip of latency);
 * - signingMs: the signer's signTransaction (signed ahead, during the simulation round trip,
 *   unless BENCH_PRESIGN=0);
 * - overheadMs: everything but the two round trips (API and simulation): intent write, guard,
 *   signing when it is not hidden in the simulation, the write-ahead commit, our glue.
 *   Goal p50 ≤ 1.5 ms, p99 ≤ 5 ms.
 * - totalMsP50: the whole path, round trips included (the honest end-to-end number).
 * Env: BENCH_PRESIGN=0 (sign after the simulation, as before), BENCH_GAS=fixed, BENCH_SIGNER=ethers,
 * BENCH_SYNC=normal, BENCH_TRACE=1.
 * The receipt wait after the broadcast is not measured.
 *
 * Prints progress lines on stderr, then one JSON object as the last stdout line.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Contract, MaxUint256, type Wallet, ZeroAddress, ZeroHash } from 'ethers';
import { createApiClient } from '../src/api/client.ts';
import { createTransport } from '../src/api/transport.ts';
import { createCalldataGuard } from '../src/chain/guard/index.ts';
import {
  type ChainRpc,
  createEthersRpc,
  createTxSender,
  type Signer,
  signerFromPrivateKey,
} from '../src/chain/index.ts';
import { Secret } from '../src/domain/secret.ts';
import { createExecutor, createFastTxSigner, type ExecutionStep } from '../src/execution/index.ts';
import { parseGroupRates } from '../src/ratelimit/rates.ts';
import { createScheduler } from '../src/ratelimit/scheduler.ts';
import { createSandbox, SANDBOX_FEE_RECIPIENT } from '../src/sandbox/index.ts';
import { seedListings } from '../src/sandbox/simulator/seed.ts';
import { openStore } from '../src/store/index.ts';

const { values } = parseArgs({
  options: { quick: { type: 'boolean', default: false } },
  allowPositionals: true,
});
const quick = values.quick === true || process.env['BENCH_QUICK'] === '1';
const SAMPLES = quick ? 40 : 200;
const WARMUP = 5;
const UNLIMITED = { capacity: 1_000_000, windowMs: 1_000 };
const log = (msg: string) => process.stderr.write(`${msg}\n`);

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const i = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, i)] as number;
}
const round = (n: number, d = 3) => Math.round(n * 10 ** d) / 10 ** d;

const sandbox = await createSandbox({
  activity: 0,
  wallets: 40,
  limits: { read: UNLIMITED, write: UNLIMITED, fulfillment: UNLIMITED },
  onProgress: log,
});
const dir = mkdtempSync(join(tmpdir(), 'harpoon-bench-snipe-'));
try {
  const perCollection = quick ? 35 : 130;
  log(`seeding ${perCollection} listings per collection…`);
  const seeded = await seedListings(sandbox, { perCollection });
  const collections = new Map(sandbox.catalog.collections().map((c) => [c.slug, c]));
  const listings = seeded.flatMap((l) => {
    const c = collections.get(l.collection);
    const raw = sandbox.market
      .allListings(l.collection, { maker: l.maker, limit: 200 })
      .items.find((x) => (x as unknown as { order_hash: string }).order_hash === l.orderHash) as unknown as
      | { price: { current: { currency: string } }; remaining_quantity: number }
      | undefined;
    if (!c || !raw) return [];
    const currency = raw.price.current.currency;
    if (currency !== 'ETH' && currency !== 'WETH') return [];
    return [
      {
        ...l,
        contract: c.contract,
        standard: c.standard as 'erc721' | 'erc1155',
        paymentToken: currency === 'ETH' ? ZeroAddress : sandbox.weth,
        quantity: BigInt(raw.remaining_quantity),
        fees: c.fees.map((f) => f.recipient),
      },
    ];
  });
  const samples = Math.min(SAMPLES, listings.length - WARMUP);
  log(
    `${listings.length} listings (${listings.filter((l) => l.paymentToken === ZeroAddress).length} in ETH, ` +
      `${listings.filter((l) => l.standard === 'erc1155').length} ERC-1155); ${samples} measured`,
  );
  if (samples < 10) throw new Error('not enough listings seeded');

  const buyer = sandbox.fixture.wallets[1] as Wallet;
  const key = (sandbox.wallets[1] as { privateKey: string }).privateKey;

  // the daemon's wiring, instrumented
  const scheduler = createScheduler({
    rates: parseGroupRates({ read: '1000000/h', write: '1000000/h', fulfillment: '1000000/h' }),
  });
  const transport = createTransport({ baseUrl: sandbox.apiUrl, scheduler });
  transport.credentials.setApiKey(new Secret(sandbox.apiKey, 'api key'));
  const api = createApiClient(transport);
  const rpc = createEthersRpc({ url: sandbox.rpcUrl, chainId: sandbox.chainId, timeoutMs: 10_000 });
  let sendIssuedAt = 0;
  let onSend = () => {};
  const senderRpc: ChainRpc = {
    ...rpc,
    chainId: rpc.chainId,
    sendRawTransaction(raw: string) {
      sendIssuedAt = performance.now();
      onSend();
      return rpc.sendRawTransaction(raw);
    },
  };
  // BENCH_SIGNER=ethers: src/chain's LocalSigner (ethers Transaction); default the fast path
  const signerKind = process.env['BENCH_SIGNER'] === 'ethers' ? 'ethers' : 'noble';
  const inner =
    signerKind === 'ethers'
      ? signerFromPrivateKey(new Secret(key, 'private key'))
      : createFastTxSigner(new Secret(key, 'private key'));
  let signingMs = 0;
  const trace = { callAt: 0, callEnd: 0, signAt: 0, signEnd: 0, commitAt: 0, commitEnd: 0 };
  const signer: Signer = {
    address: inner.address,
    async signTransaction(tx) {
      const t = performance.now();
      const raw = await inner.signTransaction(tx);
      signingMs = performance.now() - t;
      trace.signAt = t;
      trace.signEnd = t + signingMs;
      return raw;
    },
    signTypedData: (d, t, v) => inner.signTypedData(d, t, v),
    signDigest: (d) => inner.signDigest(d),
  };
  const synchronous = process.env['BENCH_SYNC'] === 'normal' ? 'normal' : 'full';
  const rawStore = openStore(join(dir, 'store.db'), { synchronous });
  let storeMs = 0;
  const store: typeof rawStore = {
    ...rawStore,
    transaction(fn, opts) {
      const t = performance.now();
      try {
        return rawStore.transaction(fn, opts);
      } finally {
        if (opts?.durable !== false && sendIssuedAt === 0) {
          trace.commitAt = t;
          trace.commitEnd = performance.now();
        }
        storeMs += performance.now() - t;
        if (process.env['BENCH_TRACE'])
          process.stderr.write(
            `commit ${(performance.now() - t).toFixed(3)} durable=${opts?.durable !== false}\n`,
          );
      }
    },
  };
  const sender = createTxSender({
    signer,
    rpc: senderRpc,
    store,
    feeCaps: { maxFeePerGas: 200_000_000_000n, maxPriorityFeePerGas: 3_000_000_000n },
    pollIntervalMs: 5,
    feeCacheMs: 600_000,
  });
  const feeRecipients = new Set<string>([SANDBOX_FEE_RECIPIENT]);
  for (const c of sandbox.catalog.collections()) for (const f of c.fees) feeRecipients.add(f.recipient);
  const guard = createCalldataGuard({
    chainId: sandbox.chainId,
    wallets: [buyer.address],
    seaport: [sandbox.seaport],
    conduitKeys: [ZeroHash, sandbox.conduitKey],
    feeRecipients: [...feeRecipients],
    weth: sandbox.weth,
    call: async ({ from, to, data, value }) => {
      trace.callAt = performance.now();
      try {
        return await rpc.call({ from, to, data, value });
      } finally {
        trace.callEnd = performance.now();
      }
    },
  });
  const stamps = new Map<ExecutionStep, number>();
  const executor = createExecutor({
    api,
    guard,
    sender,
    rpc,
    store,
    chainId: sandbox.chainId,
    chain: sandbox.chain,
    wallet: buyer.address,
    protocolAddress: sandbox.seaport,
    // BENCH_GAS=fixed: a configured gas limit instead of eth_estimateGas beside the simulation
    ...(process.env['BENCH_GAS'] === 'fixed' ? { fulfillmentGasLimit: 400_000n } : {}),
    presign: process.env['BENCH_PRESIGN'] !== '0',
    onStep: (s) => {
      stamps.set(s, performance.now());
    },
  });
  await executor.reconcile();
  // WETH for the WETH listings, approved to the conduit (set up once, as any buyer would)
  const weth = new Contract(
    sandbox.weth,
    ['function deposit() payable', 'function approve(address,uint256) returns (bool)'],
    buyer,
  );
  await (await weth.getFunction('deposit')({ value: 500n * 10n ** 18n })).wait();
  await (await weth.getFunction('approve')(sandbox.fixture.seaport.conduit, MaxUint256)).wait();

  const rows: {
    total: number;
    api: number;
    guard: number;
    sim: number;
    sign: number;
    store: number;
    overhead: number;
  }[] = [];
  for (let i = 0; i < samples + WARMUP; i++) {
    const l = listings[i] as (typeof listings)[number];
    stamps.clear();
    sendIssuedAt = 0;
    storeMs = 0;
    let storeAtSend = 0;
    // the listing event in memory → the executor
    onSend = () => {
      storeAtSend = storeMs;
    };
    const t0 = performance.now();
    const out = await executor.buyListing({
      intentId: `bench-${i}`,
      orderHash: l.orderHash,
      collection: l.collection,
      nft: { contract: l.contract, tokenId: BigInt(l.tokenId), standard: l.standard },
      maxPrice: l.price,
      paymentToken: l.paymentToken,
      ...(l.standard === 'erc1155' ? { quantity: l.quantity } : {}),
      feeRecipients: l.fees,
    });
    if (out.state !== 'done') throw new Error(`buy ${i} ended ${out.state}`);
    if (i < WARMUP) continue;
    const at = (s: ExecutionStep) => stamps.get(s) as number;
    const total = sendIssuedAt - t0;
    const apiMs = at('fulfillment') - at('intent');
    const guardMs = at('guard') - at('fulfillment');
    const simMs = at('simulated') - at('guard');
    rows.push({
      total,
      api: apiMs,
      guard: guardMs,
      sim: simMs,
      sign: signingMs,
      store: storeAtSend,
      overhead: total - apiMs - simMs,
    });
    if (process.env['BENCH_TRACE']) {
      const g = at('guard');
      const rel = (x: number) => (x - g).toFixed(3);
      log(
        `sample ${i}: from guard: eth_call ${rel(trace.callAt)}→${rel(trace.callEnd)}, sign ${rel(trace.signAt)}→${rel(trace.signEnd)}, ` +
          `simulated ${rel(at('simulated'))}, write-ahead ${rel(trace.commitAt)}→${rel(trace.commitEnd)}, send ${rel(sendIssuedAt)}; before api ${(at('intent') - t0).toFixed(3)}`,
      );
    }
  }
  const p = (k: keyof (typeof rows)[number], q: number) =>
    round(
      percentile(
        rows.map((r) => r[k]),
        q,
      ),
    );
  log(
    `total p50 ${p('total', 50)} ms; api ${p('api', 50)}; simulation ${p('sim', 50)}; ` +
      `guard ${p('guard', 50)}; signing ${p('sign', 50)}; store commits ${p('store', 50)} / p99 ${p('store', 99)} (synchronous=${synchronous}); signer ${signerKind}; presign ${process.env['BENCH_PRESIGN'] !== '0'}; overhead ${p('overhead', 50)} / p99 ${p('overhead', 99)}`,
  );
  await transport.close();
  await scheduler.stop();
  rpc.destroy();
  rawStore.close();
  process.stdout.write(
    `${JSON.stringify({
      overheadMsP50: p('overhead', 50),
      overheadMsP99: p('overhead', 99),
      apiMsP50: p('api', 50),
      guardMsP50: p('guard', 50),
      simulationMsP50: p('sim', 50),
      signingMsP50: p('sign', 50),
      storeCommitsMsP50: p('store', 50),
      totalMsP50: p('total', 50),
      samples: rows.length,
    })}\n`,
  );
} finally {
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
}
