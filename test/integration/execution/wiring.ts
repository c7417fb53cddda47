/**
 * The executor wired to a sandbox the way the daemon wires it (API client through the rate-limit
 * scheduler, the ethers RPC adapter, the calldata guard, the write-ahead sender, the SQLite
 * store, approvals to the conduit). Used by the integration tests and by the crash child, which
 * gets the sandbox facts as JSON.
 */
import { JsonRpcProvider, ZeroHash } from 'ethers';
import { type ApiClient, createApiClient } from '../../../src/api/client.ts';
import { createTransport } from '../../../src/api/transport.ts';
import { createCalldataGuard } from '../../../src/chain/guard/index.ts';
import {
  type ChainRpc,
  createEthersRpc,
  createTxSender,
  type LocalSigner,
  signerFromPrivateKey,
  type TxSender,
} from '../../../src/chain/index.ts';
import { Secret } from '../../../src/domain/secret.ts';
import {
  type CollectionInfo,
  createExecutor,
  createOrderDesk,
  type ExecutionStep,
  type Executor,
  type OrderDesk,
} from '../../../src/execution/index.ts';
import { createOrderLedger, type OrderLedger, storeLedger } from '../../../src/ledger/index.ts';
import { createScheduler } from '../../../src/ratelimit/scheduler.ts';
import { SANDBOX_FEE_RECIPIENT, type Sandbox } from '../../../src/sandbox/index.ts';
import {
  createApprovals,
  createEthersSeaportReader,
  createLocalDigestSigner,
  createSeaportOrders,
  latestBlockClock,
  type SeaportReader,
} from '../../../src/seaport/index.ts';
import { openStore, type Store } from '../../../src/store/index.ts';
import { roomyRates } from '../limits.ts';

/** The sandbox facts the executor needs (JSON-safe, for a child process). */
export interface SandboxFacts {
  readonly apiUrl: string;
  readonly apiKey: string;
  readonly rpcUrl: string;
  readonly chain: string;
  readonly chainId: number;
  readonly seaport: string;
  readonly conduitKey: string;
  readonly conduit: string;
  readonly weth: string;
  readonly router: string;
  readonly drops: readonly string[];
  readonly feeRecipients: readonly string[];
}

export function factsOf(sb: Sandbox): SandboxFacts {
  const owners = new Set<string>([SANDBOX_FEE_RECIPIENT]);
  for (const c of sb.catalog.collections()) for (const f of c.fees) owners.add(f.recipient);
  return {
    apiUrl: sb.apiUrl,
    apiKey: sb.apiKey,
    rpcUrl: sb.rpcUrl,
    chain: sb.chain,
    chainId: sb.chainId,
    seaport: sb.seaport,
    conduitKey: sb.conduitKey,
    conduit: sb.fixture.seaport.conduit,
    weth: sb.weth,
    router: sb.fixture.uniswap?.router ?? '',
    drops: sb.fixture.drops.map((d) => d.address),
    feeRecipients: [...owners],
  };
}

export interface Wired {
  readonly executor: Executor;
  /** The API client the executor uses (through the same scheduler). */
  readonly api: ApiClient;
  readonly store: Store;
  readonly sender: TxSender;
  readonly rpc: ChainRpc;
  readonly signer: LocalSigner;
  close(): Promise<void>;
}

export interface WireOptions {
  readonly onStep?: (step: ExecutionStep, intentId: string) => void;
  /** Wraps the RPC the sender uses (crash points around eth_sendRawTransaction). */
  readonly wrapRpc?: (rpc: ChainRpc) => ChainRpc;
}

export function wire(facts: SandboxFacts, key: string, dbPath: string, opts: WireOptions = {}): Wired {
  const scheduler = createScheduler({ rates: roomyRates() });
  const transport = createTransport({ baseUrl: facts.apiUrl, scheduler });
  transport.credentials.setApiKey(new Secret(facts.apiKey, 'api key'));
  const api = createApiClient(transport);
  const baseRpc = createEthersRpc({ url: facts.rpcUrl, chainId: facts.chainId, timeoutMs: 10_000 });
  const rpc = opts.wrapRpc ? opts.wrapRpc(baseRpc) : baseRpc;
  const signer = signerFromPrivateKey(new Secret(key, 'private key'));
  const store = openStore(dbPath);
  const sender = createTxSender({
    signer,
    rpc,
    store,
    feeCaps: { maxFeePerGas: 200_000_000_000n, maxPriorityFeePerGas: 3_000_000_000n },
    pollIntervalMs: 25,
    rebroadcastAfterMs: 2_000,
    receiptTimeoutMs: 30_000,
    feeCacheMs: 2_000,
  });
  const guard = createCalldataGuard({
    chainId: facts.chainId,
    wallets: [signer.address],
    seaport: [facts.seaport],
    conduitKeys: [ZeroHash, facts.conduitKey],
    feeRecipients: facts.feeRecipients,
    ...(facts.router ? { routers: [facts.router] } : {}),
    weth: facts.weth,
    drops: facts.drops,
    call: ({ from, to, data, value }) => baseRpc.call({ from, to, data, value }),
  });
  const provider = new JsonRpcProvider(facts.rpcUrl, facts.chainId, { staticNetwork: true });
  const reader = createEthersSeaportReader(provider, facts.seaport);
  const executor = createExecutor({
    api,
    guard,
    sender,
    rpc: baseRpc,
    store,
    chainId: facts.chainId,
    chain: facts.chain,
    wallet: signer.address,
    protocolAddress: facts.seaport,
    approvals: createApprovals({ chainId: facts.chainId, conduit: facts.conduit }, reader),
    orders: reader,
    ...(opts.onStep ? { onStep: opts.onStep } : {}),
  });
  return {
    executor,
    api,
    store,
    sender,
    rpc: baseRpc,
    signer,
    async close() {
      await transport.close();
      await scheduler.stop();
      baseRpc.destroy();
      provider.destroy();
      store.close();
    },
  };
}

export interface Desk {
  readonly desk: OrderDesk;
  readonly ledger: OrderLedger;
  readonly reader: SeaportReader;
}

/**
 * The one offer path as the daemon wires it, on a wired executor's API client, sender and store:
 * orders signed locally with `key`, the ledger on the store, approvals only to the conduit.
 */
export function deskOn(
  sb: Sandbox,
  w: Wired,
  key: string,
  opts: {
    readonly collection: (slug: string) => Promise<CollectionInfo>;
    readonly standardOf?: (contract: string) => Promise<'erc721' | 'erc1155'>;
    readonly counterBumpAt?: number;
    readonly onChainBatchMs?: number;
  },
): Desk {
  const provider = sb.fixture.provider;
  const reader = createEthersSeaportReader(provider, sb.seaport);
  const orders = createSeaportOrders(
    {
      chainId: sb.chainId,
      protocolAddress: sb.seaport,
      conduitKey: sb.conduitKey,
      signedZone: sb.zone,
      offerToken: sb.weth,
      offerExpirySec: 3600,
    },
    {
      signer: createLocalDigestSigner(new Secret(key, 'private key')),
      counters: reader,
      clock: latestBlockClock(provider),
    },
  );
  const clock = { now: () => Date.now() };
  const ledger = createOrderLedger({ clock, chain: sb.chain, store: storeLedger(w.store, clock.now) });
  const desk = createOrderDesk({
    api: w.api,
    orders,
    sender: w.sender,
    ledger,
    chain: sb.chain,
    clock,
    collection: opts.collection,
    ...(opts.standardOf !== undefined ? { standardOf: opts.standardOf } : {}),
    ...(opts.counterBumpAt !== undefined ? { counterBumpAt: opts.counterBumpAt } : {}),
    ...(opts.onChainBatchMs !== undefined ? { onChainBatchMs: opts.onChainBatchMs } : {}),
    approvals: createApprovals({ chainId: sb.chainId, conduit: sb.fixture.seaport.conduit }, reader),
  });
  return { desk, ledger, reader };
}
