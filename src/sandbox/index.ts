import { getAddress } from 'ethers';
import { chainNameOf } from '../domain/chains.ts';
import type { AuthOptions } from './auth/service.ts';
import type { TokenStandard } from './catalog/catalog.ts';
import {
  Catalog,
  type CatalogCollection,
  creatorFeeSpecs,
  MARKETPLACE_FEE,
  MARKETPLACE_FEE_RECIPIENT,
} from './catalog/catalog.ts';
import { type ChainFixture, startChainFixture } from './chain/fixture.ts';
import {
  type OffchainCollection,
  type OffchainCollectionOptions,
  offchainCollection,
} from './data/offchain.ts';
import { EventLog } from './events/log.ts';
import { createMarket, legacyOrderOf, type SandboxMarket } from './market/index.ts';
import { MCP_PATH } from './mcp/index.ts';
import type { BucketLimit, LimitGroup } from './ratelimit/token-bucket.ts';
import { createSandboxServer, type SandboxServer } from './server/index.ts';
import type { KeyCreationLimit } from './server/keys.ts';
import type { TxInfo } from './server/render-events.ts';
import { type ActionWeights, createSimulator, type Simulator } from './simulator/index.ts';
import { SenderPool } from './simulator/sender.ts';
import { createWindowFiller } from './simulator/window-fill.ts';
import { attachStreamServer, type StreamServer } from './stream/index.ts';

/**
 * `createSandbox`: the whole local marketplace in one call — the HTTP API (keys, rate limits,
 * orders, events, metadata, admin), the Phoenix stream on the same port, anvil with Seaport 1.6,
 * WETH, the signed zone and the test collections, the catalog, the event log and the order book.
 *
 * Order of start: the HTTP server listens first (token URIs deployed on the chain point at its
 * `/metadata`, so the port must be known), then the chain fixture deploys, then the catalog and
 * the market are attached, then the stream. One API key is created for the caller; then, with
 * `activity` > 0, the market simulator funds its traders and posts an initial book before this
 * resolves, and keeps trading until `close()`.
 */

/** The marketplace fee recipient (OpenSea's, so clients' fee code sees a familiar address). */
export const SANDBOX_FEE_RECIPIENT = MARKETPLACE_FEE_RECIPIENT;

export interface SandboxOptions {
  /** Seeds traits and fault dice. Default 1. */
  readonly seed?: number;
  /** HTTP and stream port on 127.0.0.1. Default 0 (a free port). */
  readonly port?: number;
  /** Default 1 (chain name `ethereum`). */
  readonly chainId?: number;
  /**
   * Market simulator actions per second (src/sandbox/simulator): traders on the fixture wallets
   * from index 3 on list, offer, buy, sell, transfer, cancel and update metadata, on chain and
   * signed. Default 0: a quiet market — no simulator at all, not even an initial order book.
   */
  readonly activity?: number;
  /**
   * Relative frequencies of the simulator's actions, merged over its defaults (e.g. `{ buy: 0 }`
   * for a market whose traders never buy a listing). Only with `activity` > 0.
   */
  readonly weights?: Partial<ActionWeights>;
  /** Funded wallets handed out. Default 10. */
  readonly wallets?: number;
  /** Rate limits enforced per account; default the free tier (600/h, 30/h, 5/m). */
  readonly limits?: Readonly<Record<LimitGroup, BucketLimit>>;
  readonly keyLifetimeMs?: number;
  readonly keyCreationLimit?: KeyCreationLimit;
  /** Wallet credentials: lifetimes (nonce, cookies, JWT, PAT days), SIWE domains, JWT on cancel. */
  readonly auth?: AuthOptions;
  /** Progress lines (Seaport compile on first run, deploy steps). */
  readonly onProgress?: (message: string) => void;
  /** Compile cache directory; default the project's. */
  readonly cacheDir?: string;
  /**
   * An extra collection known only from other marketplaces: `items` items with deterministic
   * traits and `listings` external listings, in the sandbox's data, nothing on chain
   * (src/sandbox/data/offchain.ts). Default none. The benchmark uses 10 000 items.
   */
  readonly offchainCollection?: OffchainCollectionOptions;
}

export interface SandboxCollectionInfo {
  readonly slug: string;
  readonly contract: string;
  readonly standard: TokenStandard;
}

/** What a client needs to use the sandbox (the CLI prints exactly this as one JSON line). */
export interface SandboxInfo {
  readonly apiUrl: string;
  readonly streamUrl: string;
  /** The agent-protocol (MCP) server, Streamable HTTP (`{mcp_url}` of the spec). */
  readonly mcpUrl: string;
  readonly rpcUrl: string;
  readonly chain: string;
  readonly chainId: number;
  readonly seaport: string;
  readonly conduitKey: string;
  readonly zone: string;
  readonly weth: string;
  readonly collections: readonly SandboxCollectionInfo[];
  /** WETH and the ERC20 test tokens of the swap venue. */
  readonly tokens: readonly {
    readonly symbol: string;
    readonly address: string;
    readonly decimals: number;
  }[];
  /** Slugs of the drops (`/api/v2/drops/{slug}`). */
  readonly drops: readonly string[];
  readonly apiKey: string;
  readonly wallets: readonly { readonly address: string; readonly privateKey: string }[];
}

export interface Sandbox extends SandboxInfo {
  /** The pieces, for tests and embedding. */
  readonly server: SandboxServer;
  readonly stream: StreamServer;
  readonly market: SandboxMarket;
  readonly fixture: ChainFixture;
  readonly catalog: Catalog;
  readonly events: EventLog;
  /** Requested activity (simulator actions per second; 0 = quiet); `simulated`: the simulator is built. */
  readonly activity: { readonly requested: number; readonly simulated: boolean };
  /** The off-chain collection, when `offchainCollection` was given. */
  readonly offchain: OffchainCollection | undefined;
  /** The running market simulator; undefined when `activity` is 0. */
  readonly simulator: Simulator | undefined;
  /** Only the client-facing facts (no secrets beyond the dev wallets and the key it made). */
  info(): SandboxInfo;
  /** Stops the simulator, the stream, the market, the HTTP server and anvil. Safe to call twice. */
  close(): Promise<void>;
}

/** The catalog of a deployed fixture: 1 % marketplace fee plus each collection's royalty to its owner. */
export function catalogOf(seed: number, fixture: ChainFixture, owner: string): Catalog {
  const collections: CatalogCollection[] = fixture.collections.map(
    ({ contract: _contract, address, ...spec }) => ({
      ...spec,
      contract: address,
      owner,
      fees: [MARKETPLACE_FEE, ...creatorFeeSpecs([{ recipient: owner, percent: spec.royaltyPercent }])],
    }),
  );
  return new Catalog(seed, collections);
}

export async function createSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const seed = options.seed ?? 1;
  const chainId = options.chainId ?? 1;
  const chain = chainNameOf(chainId) ?? 'ethereum';
  const progress = options.onProgress ?? (() => {});
  const events = new EventLog();
  const server = createSandboxServer({
    events,
    chain,
    seed,
    ...(options.limits !== undefined ? { limits: options.limits } : {}),
    ...(options.keyLifetimeMs !== undefined ? { keyLifetimeMs: options.keyLifetimeMs } : {}),
    ...(options.keyCreationLimit !== undefined ? { keyCreationLimit: options.keyCreationLimit } : {}),
    ...(options.auth !== undefined ? { auth: options.auth } : {}),
  });
  const cleanup: (() => Promise<unknown>)[] = [];
  const undo = async () => {
    for (const f of cleanup.reverse()) await f().catch(() => undefined);
  };
  try {
    const apiUrl = await server.listen({ port: options.port ?? 0, host: '127.0.0.1' });
    cleanup.push(() => server.close());
    progress(`sandbox: HTTP API listening on ${apiUrl}; starting anvil and deploying contracts`);

    const fixture = await startChainFixture({
      chainId,
      metadataBaseUrl: `${apiUrl}/metadata`,
      wallets: options.wallets ?? 10,
      onProgress: progress,
      ...(options.cacheDir !== undefined ? { cacheDir: options.cacheDir } : {}),
    });
    cleanup.push(() => fixture.stop());
    const owner = getAddress(await fixture.admin.getAddress());
    const catalog = catalogOf(seed, fixture, owner);
    progress(
      `sandbox: chain ${chainId} at ${fixture.anvil.rpcUrl}; ${catalog.collections().length} collections deployed`,
    );

    const market = createMarket({ fixture, catalog, events, chain });
    cleanup.push(() => market.close());

    const stream = attachStreamServer(server.build(), {
      events,
      authenticate: (token) => server.authenticate(token) !== undefined,
      chain,
      catalog,
      seed,
      metadataUrl: (_contract, id, slug) => `${apiUrl}/metadata/${slug}/${id}`,
      imageUrl: (_contract, id, slug) => `${apiUrl}/metadata/${slug}/${id}/image.svg`,
    });
    cleanup.push(() => stream.close());

    const offchain =
      options.offchainCollection !== undefined
        ? offchainCollection(seed, options.offchainCollection)
        : undefined;
    const txCache = new Map<string, TxInfo>();
    // The traders' transactions (simulator and cancel-window fills) share one sender per wallet.
    const senders = new SenderPool();
    const windowFiller = createWindowFiller({ market, fixture, catalog, senders });
    cleanup.push(() => windowFiller.close());
    server.attach({
      windowFiller,
      fixture,
      catalog,
      market,
      legacyOrderOf,
      stream,
      ...(offchain !== undefined ? { offchain } : {}),
      txInfo: async (hash) => {
        const hit = txCache.get(hash);
        if (hit) return hit;
        const r = await fixture.provider.getTransactionReceipt(hash).catch(() => null);
        if (!r) return undefined;
        const info: TxInfo = { blockHash: r.blockHash, transactionIndex: r.index, from: r.from, to: r.to };
        txCache.set(hash, info);
        return info;
      },
    });
    const apiKey = server.keys.issue('sandbox').apiKey;

    const activity = options.activity ?? 0;
    let simulator: Simulator | undefined;
    if (activity > 0) {
      const sim = createSimulator({
        market,
        fixture,
        catalog,
        events,
        seed,
        activity,
        senders,
        ...(options.weights !== undefined ? { weights: options.weights } : {}),
        logger: { warn: (d, m) => progress(`sandbox ${m}: ${String(d['error'])}`) },
      });
      simulator = sim;
      server.attach({ traders: sim.takers });
      cleanup.push(() => sim.stop());
      progress(
        `sandbox: simulating ${activity} market actions/s with traders on wallets ${sim.traderWallets.join(', ')}; posting the initial order book`,
      );
      // A simulator that cannot start leaves a quiet but working sandbox (the failure is logged).
      await sim.start().catch(() => undefined);
    }

    const streamUrl = `${apiUrl.replace(/^http/, 'ws')}/socket`;
    const info: SandboxInfo = Object.freeze({
      apiUrl,
      streamUrl,
      mcpUrl: `${apiUrl}${MCP_PATH}`,
      rpcUrl: fixture.anvil.rpcUrl,
      chain,
      chainId,
      seaport: fixture.seaport.seaport,
      conduitKey: fixture.seaport.conduitKey,
      zone: getAddress(String(fixture.zone.target)),
      weth: getAddress(String(fixture.weth.target)),
      collections: catalog
        .collections()
        .map((c) => ({ slug: c.slug, contract: c.contract, standard: c.standard })),
      tokens: [
        { symbol: 'WETH', address: getAddress(String(fixture.weth.target)), decimals: 18 },
        ...(fixture.uniswap?.tokens ?? []).map((t) => ({
          symbol: t.symbol,
          address: t.address,
          decimals: t.decimals,
        })),
      ],
      drops: fixture.drops.map((d) => d.slug),
      apiKey,
      wallets: fixture.wallets.map((w) => ({ address: w.address, privateKey: w.privateKey })),
    });
    let closing: Promise<void> | undefined;
    return {
      ...info,
      server,
      stream,
      market,
      fixture,
      catalog,
      events,
      offchain,
      activity: { requested: activity, simulated: true },
      simulator,
      info: () => info,
      close() {
        closing ??= undo();
        return closing;
      },
    };
  } catch (e) {
    await undo();
    throw e;
  }
}
