import { formatUnits } from '../domain/money.ts';

/** Fraction digits an alert shows; more are cut (never rounded up) and marked with `≈`. */
const SHOWN_DECIMALS = 6;

/** `0.5 WETH`; an amount with more than six decimals is cut to six and shown as `≈0.123456 WETH`. */
export function formatAmount(value: bigint, decimals: number, symbol: string): string {
  const exact = formatUnits(value, decimals);
  const dot = exact.indexOf('.');
  if (dot < 0 || exact.length - dot - 1 <= SHOWN_DECIMALS) return `${exact} ${symbol}`;
  const cut = exact.slice(0, dot + 1 + SHOWN_DECIMALS).replace(/\.?0+$/, '');
  return `≈${cut === '' || cut === '-' ? '0' : cut} ${symbol}`;
}

/** `0x1234ab…cdef` for a hash or an address: enough to recognise it on a phone. */
export function shortHex(hex: string): string {
  return hex.length > 14 ? `${hex.slice(0, 8)}…${hex.slice(-4)}` : hex;
}

/** `45 s`, `3 min`, `2 h 5 min`. */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 120) return `${s} s`;
  const min = Math.floor(s / 60);
  if (min < 120) return `${min} min`;
  const h = Math.floor(min / 60);
  return min % 60 === 0 ? `${h} h` : `${h} h ${min % 60} min`;
}

/** The UTC day of an epoch-ms instant, `2026-11-26`. */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** Text cut to `max` characters (an ellipsis marks the cut). */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`;
}
