import { ExitCode } from '../exit.ts';
import { packageVersion } from '../package-info.ts';
import type { CommandContext } from '../spec.ts';

/**
 * `harpoon demo` (what `npm start` runs): the quick-start job.
 *
 * Extension point: this first version only explains what harpoon is and what is built so far.
 * It will be replaced by a live run against the local sandbox. Contract: write through `ctx.io`,
 * stop cleanly when `ctx.io.signal` aborts, return an exit code (throw ConfigError/FatalError to
 * get exit 2/3 from main).
 */
export async function runDemo(ctx: CommandContext): Promise<number> {
  const out = (line = '') => ctx.io.stdout(`${line}\n`);
  out(`harpoon ${packageVersion()} - unattended NFT trading daemon for the OpenSea API v2`);
  out();
  out('harpoon snipes underpriced listings, keeps collection and trait offers at the top of the');
  out('book, rebalances holdings and mints drops, unattended. Strategies return intents; the engine');
  out('checks them against risk limits and a calldata guard before anything is signed.');
  out();
  out('Built:');
  out('  [x] typed API client (src/api): one transport for every endpoint, errors classed by reaction');
  out('  [x] rate-limit scheduler (src/ratelimit): read/write/fulfillment buckets, priorities,');
  out('      coalescing, 429 pauses, one Redis-shared bucket across instances');
  out('  [x] configuration (src/config): YAML/JSON + HARPOON_* env, secrets only from env/keystore');
  out();
  out('Not built yet:');
  out('  [ ] sandbox marketplace (local OpenSea API + stream on anvil with real Seaport)');
  out('  [ ] stream client (Phoenix websocket with backfill)');
  out('  [ ] signer and execution (keystore signer, calldata guard, nonce ledger)');
  out('  [ ] engine and strategies (intents, risk, paper/live executors)');
  out();
  out('Try:');
  out('  harpoon --help');
  out('  harpoon config example > harpoon.yaml');
  out('  harpoon config check --config harpoon.yaml');
  out('  npm test');
  return ExitCode.ok;
}
