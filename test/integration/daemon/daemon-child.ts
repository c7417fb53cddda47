/**
 * The daemon as its own process, for the crash tests: builds the demo's options (all five
 * strategies) from the sandbox facts in HARPOON_CRASH_FACTS (JSON) and the store folder in
 * HARPOON_CRASH_DIR, starts, prints READY, and runs until it is killed (SIGKILL: no cleanup).
 *
 *   node --import tsx daemon-child.ts
 */
import { demoDaemonOptions, type SandboxFacts } from '../../../src/cli/commands/demo.ts';
import { createDaemon } from '../../../src/daemon/index.ts';
import { silentLogger } from '../../../src/observability/index.ts';
import { roomyRates } from '../limits.ts';

const facts = JSON.parse(process.env.HARPOON_CRASH_FACTS ?? '{}') as SandboxFacts;
const dir = process.env.HARPOON_CRASH_DIR ?? '';
const wallet = Number(process.env.HARPOON_CRASH_WALLET ?? '2');
const options = {
  ...(await demoDaemonOptions(facts, { paper: false, dir, wallet })),
  rates: roomyRates(1_000_000),
};
const daemon = createDaemon(options, { logger: silentLogger() });
await daemon.start();
process.stdout.write('READY\n');
process.on('SIGTERM', () => {
  void daemon.stop().then(() => process.exit(0));
});
setInterval(() => undefined, 60_000);
