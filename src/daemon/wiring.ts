// What each adapter is built with, from the daemon's options: pure, so a test can check that every
// config key reaches the adapter that uses it (createDaemon passes exactly these, plus the live
// collaborators: logger, clock, store, signer, RPC…).
import { engineTimingFromConfig, riskLimitsFromConfig } from '../engine/index.ts';
import { DEFAULT_RATES, schedulerStoreFromConfig } from '../ratelimit/index.ts';
import type { DaemonOptions } from './options.ts';

const NO_CONDUIT_KEY = `0x${'00'.repeat(32)}`;

export function adapterOptions(o: DaemonOptions, wallet: string) {
  return {
    scheduler: {
      rates: {
        read: o.rates.read ?? DEFAULT_RATES.read,
        write: o.rates.write ?? DEFAULT_RATES.write,
        fulfillment: o.rates.fulfillment ?? DEFAULT_RATES.fulfillment,
      },
      store: schedulerStoreFromConfig(o.cluster),
    },
    transport: { baseUrl: o.api.baseUrl, timeoutMs: o.api.timeoutMs, toon: o.api.toon },
    /** What the transport sends; the keeper renews it (its hooks are added by createDaemon). */
    credentials: {
      ...(o.api.apiKey !== undefined ? { apiKey: o.api.apiKey } : {}),
      ...(o.api.walletJwt !== undefined ? { walletJwt: o.api.walletJwt } : {}),
    },
    keeper: {
      ...(o.api.pat !== undefined ? { pat: o.api.pat } : {}),
      ...(o.api.walletJwt !== undefined ? { fixedJwt: o.api.walletJwt } : {}),
      instantKey: o.api.instantKey && o.api.apiKey === undefined,
      /** HARPOON_PAT wins; else the PAT `harpoon auth login` stored here. */
      ...(o.api.pat === undefined && o.api.credentialsPath !== undefined
        ? { patFile: o.api.credentialsPath }
        : {}),
    },
    rpc: { chainId: o.chain.chainId, timeoutMs: o.chain.rpcTimeoutMs },
    sender: {
      feeCaps: { maxFeePerGas: o.chain.maxFeePerGas, maxPriorityFeePerGas: o.chain.maxPriorityFeePerGas },
      confirmations: o.chain.confirmations,
      replacement: o.chain.replacement,
      feeCacheMs: o.chain.feeCacheMs,
      gasMarginBps: o.execution.gasMarginBps,
    },
    guard: {
      chainId: o.chain.chainId,
      wallets: [wallet],
      seaport: [o.chain.seaport],
      conduitKeys: [o.chain.conduitKey, NO_CONDUIT_KEY],
      feeRecipients: o.chain.feeRecipients,
      routers: o.chain.routers,
      weth: o.chain.weth,
      drops: o.chain.drops,
    },
    approvals: { chainId: o.chain.chainId, conduit: o.chain.conduit },
    executor: {
      chainId: o.chain.chainId,
      chain: o.chain.name,
      wallet,
      protocolAddress: o.chain.seaport,
      fulfillmentGasCeiling: o.execution.fulfillmentGasCeiling,
      presign: o.execution.presign,
      gasMarginBps: o.execution.gasMarginBps,
    },
    seaport: {
      chainId: o.chain.chainId,
      protocolAddress: o.chain.seaport,
      conduitKey: o.chain.conduitKey,
      signedZone: o.chain.signedZone,
      offerToken: o.chain.weth,
      offerExpirySec: o.offerExpirySec,
    },
    desk: { chain: o.chain.name, minApproval: o.risk.maxOpenOffersTotal },
    view: {
      collections: o.collections,
      staleAfterMs: o.market.staleAfterMs,
      readsPerHour: o.market.readsPerHour,
    },
    stream: {
      streamUrl: o.api.streamUrl,
      collections: o.collections,
      heartbeatIntervalMs: o.stream.heartbeatIntervalMs,
      staleAfterMs: o.stream.staleAfterMs,
      pollAfterFailures: o.stream.pollAfterFailures,
      pollIntervalMs: o.stream.pollIntervalMs,
    },
    engine: { risk: riskLimitsFromConfig(o.risk), timing: engineTimingFromConfig(o.engine) },
    control: { host: o.control.host, port: o.control.port },
    daemon: {
      storePath: o.mode === 'paper' ? o.paperStorePath : o.storePath,
      paperReportPath: o.paperReportPath,
      pollIntervalMs: o.pollIntervalMs,
      stopTimeoutMs: o.stopTimeoutMs,
      drops: o.drops,
      logLevel: o.log.level,
    },
  };
}
