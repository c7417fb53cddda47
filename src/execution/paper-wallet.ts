/**
 * The wallet paper trading and backtests simulate. Simulated fills never reach the chain, so the
 * balances a strategy read stayed what the wallet held at the start (paper) or were none at all (a
 * backtest): a rebalancer swapped the same surplus at every run, or did nothing. What strategies
 * read instead: the balances at the start — `paper.balances` of the config when it names them,
 * else (paper) the wallet's real balances as last read — plus every simulated fill since: a buy, a
 * filled offer or a mint pays its price in its token, a sale nets its price less the fees, a swap
 * gives what it gave and receives what it was quoted, and gas is paid in the native token.
 *
 * Nothing is refused for want of funds (paper never was): a balance spent below zero reads as zero,
 * as a chain would never show one (the paper report and a backtest's report say what was spent).
 */
import type { PaymentToken } from '../domain/events.ts';
import { ZERO_ADDRESS } from '../domain/ids.ts';
import { parseUnits } from '../domain/money.ts';
import type { Balances } from '../strategy.ts';
import type { PaperFill } from './paper.ts';

/** What a fill moves in the wallet, per token (lower-case address; the native token is the zero address). */
export function fillDeltas(f: PaperFill): [string, bigint][] {
  const out: [string, bigint][] = [];
  const token = f.token.toLowerCase();
  switch (f.kind) {
    case 'buy':
    case 'offer_filled':
    case 'mint':
      out.push([token, -f.price]);
      break;
    case 'swap':
      out.push([token, -f.price]);
      if (f.received !== undefined && f.receivedToken !== undefined)
        out.push([f.receivedToken.toLowerCase(), f.received]);
      break;
    case 'listing_sold':
    case 'offer_accepted':
      out.push([token, f.price - f.fees]);
      break;
  }
  if (f.gas > 0n) out.push([ZERO_ADDRESS, -f.gas]);
  return out;
}

/** An error in `paper.balances`: which token and why. */
export class PaperBalancesError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PaperBalancesError';
  }
}

/**
 * `paper.balances` (token symbol or address → whole tokens as a decimal string) in smallest units,
 * keyed by lower-case address. A symbol must name a token the config trades (ETH is the native
 * token); an address too (its decimals are needed). Throws PaperBalancesError.
 */
export function resolvePaperBalances(
  spec: Readonly<Record<string, string>>,
  tokens: readonly PaymentToken[],
): Map<string, bigint> {
  const known: PaymentToken[] = [{ address: ZERO_ADDRESS, symbol: 'ETH', decimals: 18 }, ...tokens];
  const out = new Map<string, bigint>();
  for (const [name, amount] of Object.entries(spec)) {
    const key = name.toLowerCase();
    const matches = known.filter((t) => t.address.toLowerCase() === key || t.symbol.toLowerCase() === key);
    const addresses = new Set(matches.map((t) => t.address.toLowerCase()));
    const where = `paper.balances.${name}`;
    if (addresses.size === 0)
      throw new PaperBalancesError(
        `${where}: no token the config trades is ${name} (known: ${[...new Set(known.map((t) => t.symbol))].join(', ')}); write the symbol or address of one`,
      );
    if (addresses.size > 1)
      throw new PaperBalancesError(
        `${where}: more than one token the config trades is called ${name}; write its address`,
      );
    const t = matches[0] as PaymentToken;
    const address = t.address.toLowerCase();
    if (out.has(address))
      throw new PaperBalancesError(`${where}: ${t.symbol} is named twice (by symbol and by address)`);
    out.set(address, unitsOf(amount, t.decimals, where));
  }
  return out;
}

/** A decimal amount of whole tokens in smallest units (domain/money's parseUnits); not negative. */
function unitsOf(text: string, decimals: number, where: string): bigint {
  let v: bigint | undefined;
  try {
    v = parseUnits(text, decimals);
  } catch {
    v = undefined;
  }
  if (v !== undefined && v >= 0n) return v;
  if (v === undefined && /^\s*\d+\.\d+\s*$/.test(text) && (text.trim().split('.')[1] ?? '').length > decimals)
    throw new PaperBalancesError(`${where}: "${text}" has more than the token's ${decimals} decimals`);
  throw new PaperBalancesError(`${where}: "${text}" is not an amount of whole tokens (write e.g. "1.5")`);
}

export interface PaperWallet {
  /** The simulated balances now (null while the start is not known). */
  balances(): Balances | null;
  /** A simulated fill moves the wallet (the paper executor's `onFill`). */
  record(fill: PaperFill): void;
}

/** Where what the fills moved is kept across restarts (the paper store); read once, written per fill. */
export interface PaperWalletKeeper {
  load(): ReadonlyMap<string, bigint> | undefined;
  save(moved: ReadonlyMap<string, bigint>): void;
}

export function createPaperWallet(o: {
  /** The balances at the start: the config's, or the wallet's real ones as last read (null: not yet). */
  readonly start: () => Balances | null;
  /**
   * Keeps what the fills moved across restarts (paper mode: a restarted daemon's wallet goes on
   * from where it was, as its holdings do); absent: from nothing at each start (a backtest).
   */
  readonly keeper?: PaperWalletKeeper;
  /** A keeper that cannot load or save: told, and the wallet goes on in memory. */
  readonly onKeeperError?: (err: unknown, what: 'load' | 'save') => void;
}): PaperWallet {
  const moved = new Map<string, bigint>();
  try {
    for (const [token, d] of o.keeper?.load() ?? []) moved.set(token, d);
  } catch (err) {
    o.onKeeperError?.(err, 'load');
  }
  let version = 0;
  let last: { start: Balances; version: number; out: Balances } | null = null;

  return {
    record(fill) {
      for (const [token, d] of fillDeltas(fill)) moved.set(token, (moved.get(token) ?? 0n) + d);
      version++;
      try {
        o.keeper?.save(moved);
      } catch (err) {
        o.onKeeperError?.(err, 'save');
      }
    },
    balances() {
      const start = o.start();
      if (start === null) return null;
      if (last !== null && last.start === start && last.version === version) return last.out;
      const value = new Map(start.value);
      for (const [token, d] of moved) {
        const v = (value.get(token) ?? 0n) + d;
        value.set(token, v < 0n ? 0n : v);
      }
      const out: Balances = { value, learnedAt: start.learnedAt, from: start.from };
      last = { start, version, out };
      return out;
    },
  };
}
