import { runAuthLogin, runAuthRevoke, runAuthRotate, runAuthTokens } from './commands/auth.ts';
import {
  runBacktestCommand,
  runRecord,
  runSandboxTape,
  runTapeConvert,
  runTapeInfo,
} from './commands/backtest.ts';
import { runConfigCheck } from './commands/config-check.ts';
import { runConfigExample } from './commands/config-example.ts';
import { runDemo } from './commands/demo.ts';
import { runMcp } from './commands/mcp.ts';
import { runRun } from './commands/run.ts';
import { runSandbox } from './commands/sandbox.ts';
import { runStatus } from './commands/status.ts';
import { switchCommand } from './commands/switch.ts';
import { ExitCode, UsageError } from './exit.ts';
import {
  ACTIVITY_FLAG,
  CHAIN_ID_FLAG,
  COMBINATION_TIMEOUT_FLAG,
  COMPARE_FLAG,
  CONFIG_FLAG,
  DAYS_FLAG,
  EVERY_FLAG,
  FROM_FLAG,
  HOURS_FLAG,
  JSON_FLAG,
  LABEL_FLAG,
  LATENCY_FLAG,
  PAPER_FLAG,
  PORT_FLAG,
  PRINT_FLAG,
  REASON_FLAG,
  RECORD_SECONDS_FLAG,
  REPORT_OUT_FLAG,
  SAMPLE_FLAG,
  SCOPES_FLAG,
  SECONDS_FLAG,
  SEED_FLAG,
  SWEEP_FLAG,
  TAPE_ACTIVITY_FLAG,
  TAPE_FLAG,
  TAPE_INFO_FLAG,
  TAPE_OUT_FLAG,
  TAPE_SEED_FLAG,
  TO_FLAG,
  URL_FLAG,
  WARMUP_FLAG,
  WORKER_MEMORY_FLAG,
  WORKERS_FLAG,
} from './flags.ts';
import { renderCommandHelp, renderMainHelp } from './help.ts';
import { packageVersion } from './package-info.ts';
import type { Command } from './spec.ts';

/** Every command of `harpoon`, in the order `--help` lists them. */
export const COMMANDS: readonly Command[] = Object.freeze([
  {
    name: 'demo',
    summary:
      'quick start: the sandbox marketplace and the daemon trading on it with all six strategies (npm start)',
    description: [
      'Starts the local sandbox marketplace (REST API, stream, a local chain with Seaport 1.6, a swap',
      'venue and a drop) with simulated traders, then the daemon on config/demo.yaml with all six',
      'strategies (sniper, collection-bidder, trait-bidder, rebalancer, drop-minter, seller) trading',
      "against it with one of the sandbox's funded wallets (its key stays in memory). A live summary",
      'shows the events seen, intents, orders placed, fills, profit and loss, spend against budgets,',
      'rate budget left per group and stream freshness: the same status the control endpoint serves.',
      'Ctrl-C stops everything.',
    ].join('\n'),
    flags: [SECONDS_FLAG, PAPER_FLAG],
    examples: ['npm start', 'harpoon demo --seconds 90', 'harpoon demo --paper'],
    run: runDemo,
  },
  {
    name: 'config check',
    summary: 'load and validate a config, print it with every secret [REDACTED]',
    description: [
      'Reads the config file (YAML or JSON, by extension) and the HARPOON_* environment, validates',
      'them and prints the effective configuration. Secrets come only from the environment (or the',
      'keystore) and are printed as [REDACTED]. On a problem it names the file, the key, the bad value',
      'and the fix, and exits 2. Warnings (e.g. a keystore readable by others) go to stderr.',
    ].join('\n'),
    flags: [CONFIG_FLAG, JSON_FLAG],
    examples: [
      'harpoon config check --config harpoon.yaml',
      'HARPOON_LOG_LEVEL=debug harpoon config check -c harpoon.yaml --json',
    ],
    run: runConfigCheck,
  },
  {
    name: 'config example',
    summary: 'print a commented example config (every key with its default)',
    description: 'Prints config/example.yaml: every section and key with its default and what it does.',
    flags: [],
    examples: ['harpoon config example > harpoon.yaml'],
    run: runConfigExample,
  },
  {
    name: 'help',
    summary: 'show help for harpoon or for one command',
    description: 'Without an argument: everything (commands, flags, environment, config, exit codes).',
    flags: [],
    argsUsage: '[command]',
    examples: ['harpoon help', 'harpoon help config check'],
    async run(ctx) {
      const topic = ctx.args.join(' ');
      if (topic === '') {
        ctx.io.stdout(renderMainHelp(COMMANDS, packageVersion()));
        return ExitCode.ok;
      }
      const text = renderCommandHelp(COMMANDS, topic);
      if (text === undefined) {
        throw new UsageError(
          `no help for unknown command "${topic}"`,
          `commands: ${commandWords().join(', ')}`,
        );
      }
      ctx.io.stdout(text);
      return ExitCode.ok;
    },
  },
  {
    name: 'version',
    summary: 'print the version (same as --version)',
    description: 'Prints "harpoon <version>".',
    flags: [],
    examples: ['harpoon version', 'harpoon --version'],
    async run(ctx) {
      ctx.io.stdout(`harpoon ${packageVersion()}\n`);
      return ExitCode.ok;
    },
  },
  {
    name: 'sandbox',
    summary: 'run the local marketplace (REST API, stream, anvil with Seaport); prints one JSON line',
    description: [
      'Starts the sandbox: the marketplace REST API (instant keys, rate limits, orders, events,',
      'metadata) and its real-time stream on one port of 127.0.0.1, anvil with Seaport 1.6, WETH, the',
      'signed zone and three test collections (the first run compiles Seaport, about 45 s, cached).',
      'Once ready it prints exactly one JSON line on stdout: apiUrl, streamUrl, mcpUrl (the agent-protocol',
      '(MCP) server, Streamable HTTP), rpcUrl, chain, chainId,',
      'seaport, conduitKey, zone, weth, collections (slug, contract), apiKey and funded dev wallets',
      '(address, privateKey). Progress goes to stderr. Admin counters and fault injection live under',
      '<apiUrl>/_sandbox/ (stats, faults, reset-faults). Seeded traders on wallets 3 and up list,',
      'bid, buy, sell, transfer, cancel and update metadata with real signed orders and transactions',
      '(--activity actions per second; 0 for a quiet market); wallets 0-2 are left for you.',
      'Ctrl-C stops anvil and everything else.',
    ].join('\n'),
    flags: [PORT_FLAG, SEED_FLAG, ACTIVITY_FLAG, CHAIN_ID_FLAG],
    examples: [
      'harpoon sandbox',
      'harpoon sandbox --port 8080 --seed 42',
      'harpoon sandbox --chain-id 8453 > sandbox.json',
    ],
    run: runSandbox,
  },
  {
    name: 'sandbox tape',
    summary: "write a tape of the sandbox simulator's market offline: hours of a busy market in seconds",
    description: [
      "Plays the sandbox simulator's seeded dice (the same action weights, listing and offer prices,",
      'buy and accept limits) on an in-memory book of harpoon-apes and harpoon-punks, in virtual time,',
      'with a slowly drifting floor, and writes it as a tape: normalized events, the REST answers the',
      "market view reads (every minute), the collections' fees, gas prices and NFT traits. No chain, no",
      'network; the same seed, hours and activity give the same tape, byte for byte. Prints one JSON',
      'line (events, records, bytes, start and end) on stdout. Replay it with "harpoon backtest".',
      'It never replaces a file that is there (a recorded tape may be): remove it first.',
    ].join('\n'),
    flags: [TAPE_OUT_FLAG, TAPE_SEED_FLAG, HOURS_FLAG, TAPE_ACTIVITY_FLAG],
    examples: [
      'harpoon sandbox tape --seed 7 --hours 24 --out day.tape',
      'harpoon sandbox tape --hours 0.5 --activity 10 --out busy.tape',
    ],
    run: runSandboxTape,
  },
  {
    name: 'record',
    summary: 'record the market to a tape (every event and REST snapshot the market view takes)',
    description: [
      "Runs the daemon's market side only (API, stream, market view; no strategy, nothing signed or",
      "simulated) for the config's collections and records everything the market view learns to the",
      "tape: every normalized event and every REST answer it reads, timestamped, plus the collections'",
      "fees, gas prices, the payment tokens' prices (the config's tokens besides ETH and WETH, as its",
      "prices view reads them: a backtest swaps them at those), the status of the config's drops (a",
      "backtest's mint pays that price), the traits of listed NFTs and stream freshness. The tape is",
      'compressed and',
      'append-only, flushed every second (a crash loses at most the last second; a tape cut by one',
      'still replays up to the cut, and recording to it again continues it). It can be read while it',
      'is written. The running daemon records the same way with market.record in its config.',
      'Ctrl-C (or --seconds) stops.',
    ].join('\n'),
    flags: [CONFIG_FLAG, TAPE_OUT_FLAG, RECORD_SECONDS_FLAG],
    examples: [
      'harpoon record --config harpoon.yaml --out market.tape',
      'harpoon record -c harpoon.yaml --out day1.tape --seconds 86400',
    ],
    run: runRecord,
  },
  {
    name: 'tape info',
    summary:
      'what a tape holds: its market, span, events by kind, wallet, whether it is whole or being written',
    description: [
      'Reads a tape without replaying it (every block inflated, no record parsed but the few prices and',
      'drops: a month in seconds) and tells its market (chain, collections, who recorded it), the time',
      'it spans, its events and records by kind, the wallet a trading daemon that recorded it traded as',
      '(backtests trade as it), its size, whether its tail is whole, cut by a crash or damaged, whether',
      'a recorder is writing it now (a tape being written is read as it stands: its whole blocks), and',
      'the tokens and drops it holds prices and status of (what a backtest can swap and mint). --json',
      'prints one JSON line.',
      'Nothing is written.',
    ].join('\n'),
    flags: [TAPE_INFO_FLAG, JSON_FLAG],
    examples: ['harpoon tape info --tape market.tape', 'harpoon tape info --tape market.tape --json'],
    run: runTapeInfo,
  },
  {
    name: 'tape convert',
    summary: 'write a tape again in the version this harpoon writes (smaller, faster to replay)',
    description: [
      'A tape stays in the version it was started in for as long as it is recorded to, so a recording',
      'of an older harpoon stays as large and as slow to replay as it was. This reads every record of',
      '--tape and writes it, in order and with the same times, to the new file --out in the current',
      "version (4: market events in binary; the bench's version 3 tape becomes 5.0 MB instead of 6.2,",
      'read in ~30 % less time): the same market, replayed to the same report. A tape being recorded',
      'is converted as it stands, a torn or damaged one up to its last whole block or the damage (said',
      'on stderr). --tape is only read; --out must not be there. Prints one JSON line on stdout.',
      'Ctrl-C stops: --out is then a whole tape up to there (exit 130).',
    ].join('\n'),
    flags: [TAPE_INFO_FLAG, TAPE_OUT_FLAG],
    examples: ['harpoon tape convert --tape old.tape --out market.tape'],
    run: runTapeConvert,
  },
  {
    name: 'backtest',
    summary: 'replay a tape through the strategies, risk and simulated execution; report PnL',
    description: [
      'Replays a tape through the same market view, engine, strategies and risk as "harpoon run",',
      "with the paper executor's fill model (offers fill when a listing at or below them shows up; our",
      'listings sell when a sale at or above them happens; buys fill if the listing still stands after',
      '--latency; fees and gas as paper), in virtual time from the tape: cron and timers fire as the',
      'tape passes them. Deterministic: the same tape and config give the same report, byte for byte.',
      'A tape still being recorded (market.record of a running daemon) is replayed as it stands when',
      'the backtest starts, every sweep combination alike; what is written after is not replayed.',
      'The wallet is simulated from the config\'s paper.balances (e.g. paper: { balances: { ETH: "5",',
      'WETH: "5" } }): the start plus every simulated fill, which strategies reading balances (the',
      "rebalancer) trade from; a swap between ETH and WETH is 1:1, any other at the tokens' prices on the",
      "tape (what the recording daemon read: one whole token's quote, without the pool's impact of the",
      'amount; none by then: refused). Without balances they read none, and the backtest warns.',
      'Prints a summary; with --out PATH writes (or replaces) PATH.json (per strategy and collection:',
      'realized and unrealized PnL in wei, fills, win rate, max drawdown, capital in offers, time',
      'series) and PATH.html (a self-contained page with charts: equity over time, exposure, fills on',
      'the floor).',
      'The series and the drawdown take a sample every minute of the tape (--sample to choose; over',
      'more than ~35 days, fewer, so a report holds at most 50,000 samples by default).',
      '--sweep (repeatable) runs every combination of parameter values in worker threads (one per core)',
      'and ranks them by final equity; with --out it writes PATH.sweep.json. A combination that runs out',
      "of its worker's memory (--worker-memory) or time (--combination-timeout) fails, said; the rest run on.",
      'Ctrl-C stops a replay at the next event and writes its report up to there; a sweep drops the',
      'combinations under way and ranks those done (exit 130 either way).',
      '--compare checks the backtest against the paper run that recorded the tape (market.record with',
      'mode: paper, the same config): fill by fill and realized PnL per strategy. Differences with a',
      "known cause are told as such (a fill's time; the gas price, which the tape samples; a swap sized",
      'on the wallet; a sale decided within a moment of its purchase); any other is a disagreement, and',
      'the summary says so. With --out the comparison is in PATH.json (comparison).',
    ].join('\n'),
    flags: [
      TAPE_FLAG,
      CONFIG_FLAG,
      FROM_FLAG,
      TO_FLAG,
      WARMUP_FLAG,
      REPORT_OUT_FLAG,
      LATENCY_FLAG,
      SAMPLE_FLAG,
      COMPARE_FLAG,
      SWEEP_FLAG,
      WORKERS_FLAG,
      WORKER_MEMORY_FLAG,
      COMBINATION_TIMEOUT_FLAG,
    ],
    examples: [
      'harpoon backtest --tape market.tape --config harpoon.yaml --out report',
      'harpoon backtest --tape day.tape -c config/backtest.yaml --from 2026-01-01T06:00Z --to 2026-01-01T12:00Z',
      'harpoon backtest --tape month.tape -c harpoon.yaml --from 2026-01-30T00:00Z --warmup 1h',
      'harpoon backtest --tape day.tape -c config/backtest.yaml --latency 500 --out slow-fills',
      'harpoon backtest --tape year.tape -c harpoon.yaml --sample 3600 --out year',
      'harpoon backtest --tape market.tape -c harpoon.yaml --compare harpoon-paper-report.json',
      "harpoon backtest --tape day.tape -c config/backtest.yaml --sweep 'sniper.discountBps=1000..3000:500' --sweep 'seller.markupBps=300,500' --workers 2 --out sweep",
    ],
    run: runBacktestCommand,
  },
  {
    name: 'run',
    summary: 'run the daemon: strategies, risk, execution (live or --paper), control endpoint',
    description: [
      'Loads the config (file + HARPOON_* environment; secrets from the environment only), opens the',
      'store, reconciles every intent and transaction of a previous run before any new spend, loads',
      'the market, subscribes to the stream and runs the configured strategies. Progress and a status',
      'line go to stderr; /health, /status and /metrics are served on control.host:control.port, with',
      'the dashboard: its address is printed once at start with the control token after # (the',
      'token is also kept 0600 in <store>.control-token while it runs; HARPOON_CONTROL_TOKEN sets it).',
      'With --paper (or mode: paper) execution is simulated on live data with its own database, and',
      'a report of what it would have done is printed and saved at stop; the wallet is simulated too',
      "(paper.balances, else the wallet's real balances, plus every paper fill; kept across restarts).",
      'SIGINT/SIGTERM stop cleanly.',
      'With sandbox.enabled: true it first starts the local sandbox marketplace and trades there with',
      `one of its funded wallets (config strings may use $\{sandbox.weth} and $\{sandbox.token.<SYMBOL>}).`,
    ].join('\n'),
    flags: [CONFIG_FLAG, PAPER_FLAG, EVERY_FLAG],
    examples: ['harpoon run --config harpoon.yaml --paper', 'harpoon run -c harpoon.yaml'],
    run: runRun,
  },
  {
    name: 'status',
    summary: "print a running daemon's status (from its control endpoint)",
    description: [
      "Reads /status and /health of a running daemon (the config's control.host and control.port,",
      'or --url) and prints a summary: events, strategies, intents, open offers, fills, spend against',
      'budgets, rate budget left per group, stream freshness. --json prints the raw JSON.',
    ].join('\n'),
    flags: [CONFIG_FLAG, JSON_FLAG, URL_FLAG],
    examples: ['harpoon status', 'harpoon status --json --url http://127.0.0.1:8787'],
    run: runStatus,
  },
  {
    name: 'auth login',
    summary: "sign in with the wallet's key and create the daemon's personal access token (PAT)",
    description: [
      "Signs in to the API of the config (api.baseUrl) with the wallet's key: Sign-In with Ethereum,",
      'a message signed locally (EIP-4361; the key never leaves this machine), which opens a session',
      '(HTTP-only cookies: access 3.5 days, refresh 30 days). With that session it creates a personal',
      'access token (PAT) with the smallest scope set the configured strategies need: offers, listings',
      'and cancels (collection-bidder, trait-bidder, seller) need write:orders, drops (drop-minter) need',
      'read:eligibility, buying and swapping need none; a strategy module of your own is assumed to',
      'need them all (--scopes narrows or overrides; GET /api/v2/auth/scopes lists the names).',
      'It stores the PAT and the session cookies in the credentials file, api.credentialsPath',
      '(default ./data/credentials.json; HARPOON_CREDENTIALS_PATH), mode 0600. With --print it prints',
      'the PAT once on stdout instead, for HARPOON_PAT, and stores only the session cookies.',
      '"harpoon run" takes the PAT from HARPOON_PAT, else from the file, and exchanges it for a wallet',
      'JWT (about 12 hours) by itself, again before each JWT expires: nothing to do while it runs.',
      'A PAT is never printed or logged otherwise; the server never shows its value again.',
    ].join('\n'),
    flags: [CONFIG_FLAG, LABEL_FLAG, DAYS_FLAG, SCOPES_FLAG, PRINT_FLAG],
    examples: [
      'HARPOON_PRIVATE_KEY=0x... harpoon auth login --config harpoon.yaml',
      'harpoon auth login -c harpoon.yaml --label "harpoon on vps-1" --days 30',
      'export HARPOON_PAT=$(harpoon auth login -c harpoon.yaml --print)',
      'harpoon auth login -c harpoon.yaml --scopes write:orders',
    ],
    run: runAuthLogin,
  },
  {
    name: 'auth tokens',
    summary: "list the wallet's personal access tokens (ids, labels, scopes, expiry; never values)",
    description: [
      'Lists the personal access tokens of the signed-in wallet with the session stored by',
      '"harpoon auth login" in the credentials file: id, label, scopes, expiry and last use when the',
      'server gives it; the stored one is marked (stored). Values are never shown. An expired access',
      'cookie is renewed once with the refresh cookie (the rotated refresh cookie is saved back to the',
      'file); when the session is gone (30 days after sign-in), run "harpoon auth login" again.',
    ].join('\n'),
    flags: [CONFIG_FLAG],
    examples: ['harpoon auth tokens --config harpoon.yaml'],
    run: runAuthTokens,
  },
  {
    name: 'auth rotate',
    summary: 'give a personal access token a new value (the old one stops exchanging)',
    description: [
      'Rotates the token <id> with the stored session: same id, label and scopes, a new value and a',
      'new lifetime. The old value stops exchanging at once (wallet JWTs already issued stay valid',
      'until they expire). When <id> is the stored token, the new value replaces it in the credentials',
      'file (restart "harpoon run" to use it); with --print the new value is printed once on stdout',
      'instead (for HARPOON_PAT) and the dead one leaves the file. Another token is rotated only with',
      '--print, since its new value would otherwise be lost.',
    ].join('\n'),
    flags: [CONFIG_FLAG, PRINT_FLAG],
    argsUsage: '<id>',
    examples: [
      'harpoon auth rotate 3f2a9c0d1e2b4a5c',
      'export HARPOON_PAT=$(harpoon auth rotate 3f2a9c0d1e2b4a5c --print)',
    ],
    run: runAuthRotate,
  },
  {
    name: 'auth revoke',
    summary: 'revoke a personal access token (and remove it from the credentials file when stored)',
    description: [
      'Revokes the token <id> with the stored session: it stops exchanging at once (wallet JWTs',
      'already issued stay valid until they expire; a running daemon stops trading when its JWT',
      'cannot be renewed). When it is the stored token it is removed from the credentials file.',
    ].join('\n'),
    flags: [CONFIG_FLAG],
    argsUsage: '<id>',
    examples: ['harpoon auth revoke 3f2a9c0d1e2b4a5c --config harpoon.yaml'],
    run: runAuthRevoke,
  },
  {
    name: 'mcp',
    summary: "a running daemon's agent tools (MCP) over stdio, for an AI agent to look inside and steer it",
    description: [
      'Serves the Model Context Protocol on stdin/stdout for an agent that starts tool servers as child',
      "processes, relaying every request to the running daemon's control endpoint (/mcp, Streamable HTTP;",
      "the config's control.host and control.port, or --url) with its control token: HARPOON_CONTROL_TOKEN,",
      'else the token file the daemon keeps beside its store (found through the same --config).',
      'Tools: get_status, get_holdings (holdings, cost basis, profit and loss), get_open_orders,',
      'get_decisions (what the engine did and why), get_market (the market view of a configured',
      'collection), get_config (also the resource harpoon://config; secrets redacted) and simulate_intent',
      '(a proposed intent through the intent guard, risk and the calldata guard; nothing is executed).',
      'With mcp.allowControl: true in the config also pause, resume and kill (kill needs confirm "KILL");',
      'read-only by default. Every answer is JSON; text from the market in it is data, not instructions.',
      'Errors are tool errors with the text this command line gives. stdout carries the protocol only.',
    ].join('\n'),
    flags: [CONFIG_FLAG, URL_FLAG],
    examples: ['harpoon mcp --config harpoon.yaml', 'harpoon mcp --url http://127.0.0.1:8787'],
    run: runMcp,
  },
  ...(['kill', 'pause', 'resume'] as const).map(
    (name): Command => ({
      name,
      summary: {
        kill: 'kill switch of a running daemon: no new intents, every open offer cancelled',
        pause: 'pause a running daemon: no new intents; orders and state kept',
        resume: 'resume a paused or killed daemon',
      }[name],
      description: [
        `Sends POST /${name} to the control endpoint of a running daemon (the config's control.host and`,
        'control.port, or --url) with its control token: HARPOON_CONTROL_TOKEN, else the token file the',
        'daemon keeps beside its store (found through the same --config). The kill switch and pause are',
        'latched: they hold across a restart until "harpoon resume".',
      ].join('\n'),
      flags: [CONFIG_FLAG, URL_FLAG, ...(name === 'kill' ? [REASON_FLAG] : [])],
      examples: [`harpoon ${name}`, `harpoon ${name} --url http://127.0.0.1:8787`],
      run: switchCommand(name),
    }),
  ),
]);

/** The first words of every command (`demo`, `config`, `help`, `version`). */
export function commandWords(): string[] {
  return [...new Set(COMMANDS.map((c) => c.name.split(' ')[0] as string))];
}
