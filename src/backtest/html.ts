/**
 * The backtest report as one self-contained HTML page: inline SVG charts drawn here (no script,
 * no CDN, no web font) — equity (realized + unrealized at the floor) over time per strategy,
 * exposure (capital in offers, cost of what is held), and each collection's floor with our fills
 * on it — and the tables of the JSON report. Same report, same page.
 */

import { formatUnits } from '../domain/money.ts';
import type { Comparison, FillDifference } from './compare.ts';
import {
  type BacktestFill,
  type BacktestReport,
  costsWarnings,
  ethValued,
  intentsText,
  type ReportLine,
  utcMinute as time,
  walletWorth,
} from './report.ts';

const COLORS = ['#2563eb', '#dc2626', '#16a34a', '#9333ea', '#ea580c', '#0891b2', '#4d7c0f', '#be185d'];
const W = 860;
const H = 260;
const PAD = { l: 64, r: 12, t: 14, b: 28 };

const esc = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const eth = (wei: string | null) => (wei === null ? '—' : formatUnits(BigInt(wei), 18));
const num = (wei: string | null) => (wei === null ? null : Number(BigInt(wei)) / 1e18);
const fmt = (x: number) => {
  const s = Math.abs(x) >= 100 ? x.toFixed(0) : Math.abs(x) >= 1 ? x.toFixed(2) : x.toFixed(4);
  // a flat line at 0 is drawn between ±1e-9: its labels are 0, not "-0.0000"
  return /^-0(\.0+)?$/.test(s) ? s.slice(1) : s;
};
/** The class of an amount's cell: red when below zero. */
const neg = (wei: string | null) => (wei !== null && BigInt(wei) < 0n ? 'neg' : '');

interface Line {
  readonly name: string;
  readonly ys: readonly (number | null)[];
  readonly dash?: boolean;
}

interface Marker {
  readonly x: number;
  readonly y: number;
  readonly shape: 'up' | 'down' | 'dot';
  readonly color: string;
  readonly title: string;
}

/** In drawn(): the line breaks there (a value it does not have). */
const BREAK = -1;

/**
 * The points of a line worth drawing, by index (BREAK where a null breaks it): in each pixel column
 * (`column` of a time), its first, lowest, highest and last point, in time order — the same
 * picture as every point (a month of minutes is 43,200 of them on 784 columns), with every extreme
 * kept. A series of one point a column or fewer is drawn whole.
 */
function drawn(
  xs: readonly number[],
  ys: readonly (number | null)[],
  column: (x: number) => number,
): number[] {
  const out: number[] = [];
  let col = Number.NaN;
  let first = -1;
  let lo = -1;
  let hi = -1;
  let last = -1;
  const flush = () => {
    if (first < 0) return;
    for (const j of [first, lo, hi, last].sort((a, b) => a - b)) if (out[out.length - 1] !== j) out.push(j);
    first = -1;
  };
  for (let j = 0; j < ys.length; j++) {
    const y = ys[j];
    if (y === null || y === undefined) {
      flush();
      if (out.length > 0 && out[out.length - 1] !== BREAK) out.push(BREAK);
      col = Number.NaN;
      continue;
    }
    const c = column(xs[j] as number);
    if (c !== col) {
      flush();
      col = c;
      first = lo = hi = last = j;
      continue;
    }
    last = j;
    if (y < (ys[lo] as number)) lo = j;
    if (y > (ys[hi] as number)) hi = j;
  }
  flush();
  return out;
}

function chart(
  title: string,
  xs: readonly number[],
  lines: readonly Line[],
  markers: readonly Marker[] = [],
): string {
  const ys: number[] = [];
  for (const l of lines) for (const y of l.ys) if (y !== null) ys.push(y);
  for (const m of markers) ys.push(m.y);
  if (xs.length === 0 || ys.length === 0)
    return `<figure><figcaption>${esc(title)}</figcaption><p class="none">no data</p></figure>`;
  // not Math.min(...ys): a month of minutes, a few lines of it, is more arguments than a call takes
  let lo = ys.reduce((a, b) => Math.min(a, b));
  let hi = ys.reduce((a, b) => Math.max(a, b));
  if (lo === hi) {
    lo -= 1e-9 + Math.abs(lo) * 0.05;
    hi += 1e-9 + Math.abs(hi) * 0.05;
  }
  const x0 = xs[0] as number;
  const x1 = Math.max(x0 + 1, xs[xs.length - 1] as number);
  const sx = (x: number) => PAD.l + ((x - x0) / (x1 - x0)) * (W - PAD.l - PAD.r);
  const sy = (y: number) => PAD.t + (1 - (y - lo) / (hi - lo)) * (H - PAD.t - PAD.b);
  const parts: string[] = [];
  // axes and grid: 4 horizontal lines, start and end times
  for (let i = 0; i <= 4; i++) {
    const v = lo + ((hi - lo) * i) / 4;
    const y = sy(v).toFixed(1);
    parts.push(`<line x1="${PAD.l}" x2="${W - PAD.r}" y1="${y}" y2="${y}" class="grid"/>`);
    parts.push(`<text x="${PAD.l - 6}" y="${y}" class="ylab">${fmt(v)}</text>`);
  }
  if (lo < 0 && hi > 0)
    parts.push(
      `<line x1="${PAD.l}" x2="${W - PAD.r}" y1="${sy(0).toFixed(1)}" y2="${sy(0).toFixed(1)}" class="zero"/>`,
    );
  parts.push(`<text x="${PAD.l}" y="${H - 8}" class="xlab">${time(x0)}</text>`);
  parts.push(`<text x="${W - PAD.r}" y="${H - 8}" class="xlab end">${time(x1)}</text>`);
  lines.forEach((l, i) => {
    const color = COLORS[i % COLORS.length] as string;
    let d = '';
    let pen = false;
    for (const j of drawn(xs, l.ys, (x) => Math.floor(sx(x)))) {
      if (j === BREAK) {
        pen = false;
        continue;
      }
      d += `${pen ? 'L' : 'M'}${sx(xs[j] as number).toFixed(1)},${sy(l.ys[j] as number).toFixed(1)}`;
      pen = true;
    }
    parts.push(
      `<path d="${d}" stroke="${color}" fill="none" stroke-width="1.6"${l.dash ? ' stroke-dasharray="5 3"' : ''}/>`,
    );
  });
  // a marker per shape and pixel: fills on the same pixel are one marker that counts them (a
  // month of a busy market is ~200,000 fills, 40 MB of markers drawn one on another)
  const shown = new Map<string, { m: Marker; x: number; y: number; more: number }>();
  for (const m of markers) {
    const x = sx(m.x);
    const y = sy(m.y);
    const key = `${m.shape} ${Math.round(x)} ${Math.round(y)}`;
    const there = shown.get(key);
    if (there === undefined) shown.set(key, { m, x, y, more: 0 });
    else there.more++;
  }
  for (const { m, x, y, more } of shown.values()) {
    const title = more > 0 ? `${m.title} (and ${more} more here)` : m.title;
    const shape =
      m.shape === 'dot'
        ? `<circle cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="3.5"`
        : m.shape === 'up'
          ? `<path d="M${x.toFixed(1)},${(y - 5).toFixed(1)}l4.5,8h-9z"`
          : `<path d="M${x.toFixed(1)},${(y + 5).toFixed(1)}l4.5,-8h-9z"`;
    parts.push(
      `${shape} fill="${m.color}"><title>${esc(title)}</title>${m.shape === 'dot' ? '</circle>' : '</path>'}`,
    );
  }
  const legend = lines
    .map(
      (l, i) =>
        `<span><i style="background:${COLORS[i % COLORS.length]}${l.dash ? ';opacity:.6' : ''}"></i>${esc(l.name)}</span>`,
    )
    .join('');
  return `<figure><figcaption>${esc(title)}</figcaption><svg viewBox="0 0 ${W} ${H}" role="img" aria-label="${esc(title)}">${parts.join('')}</svg><div class="legend">${legend}</div></figure>`;
}

function table(title: string, rows: readonly ReportLine[]): string {
  const head = [
    title,
    'realized',
    'unrealized',
    'fills',
    'buys',
    'offers filled',
    'sells',
    'win rate',
    'max drawdown',
    'peak in offers',
    'held',
  ];
  const body = rows
    .map(
      (r) =>
        `<tr><th>${esc(r.key)}</th><td class="${neg(r.realized)}">${eth(r.realized)}</td><td class="${neg(r.unrealized)}">${eth(r.unrealized)}</td><td>${r.fills}</td><td>${r.buys}</td><td>${r.offerFills}</td><td>${r.sells}</td><td>${r.winRate === null ? '—' : `${(r.winRate * 100).toFixed(1)} % (${r.wins}/${r.sales})`}</td><td>${eth(r.maxDrawdown)}</td><td>${eth(r.peakOfferCapital)}</td><td>${r.held}</td></tr>`,
    )
    .join('');
  return `<table><thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>${body}</tbody></table>`;
}

function fillMarker(f: BacktestFill): Marker | null {
  // the floors drawn are in ETH: a fill in another token (18 decimals or not) is not on that scale
  if (!ethValued(f.symbol) || f.decimals !== 18) return null;
  const y = Number(BigInt(f.price)) / 1e18;
  const sell = f.kind === 'listing_sold' || f.kind === 'offer_accepted';
  return {
    x: f.at,
    y,
    shape: sell ? 'down' : f.kind === 'offer_filled' ? 'dot' : 'up',
    color: sell ? '#dc2626' : f.kind === 'offer_filled' ? '#2563eb' : '#16a34a',
    title: `${time(f.at)} ${f.strategy} ${f.kind} ${formatUnits(BigInt(f.price), 18)} ${f.symbol} ${f.item ?? ''}`,
  };
}

/** Wei as ETH, or a dash when not known (no price on the tape then). */
const worth = (wei: string | null): string => (wei === null ? '—' : formatUnits(BigInt(wei), 18));

/** The comparison with the run (harpoon backtest --compare): a sentence, then every difference and the PnL. */
function comparisonHtml(c: Comparison): string {
  const unknown = c.differences.filter((d) => d.cause === null).length;
  const side = (s: FillDifference['run']) =>
    s === undefined
      ? '<span class="none">none</span>'
      : `${formatUnits(BigInt(s.price), s.decimals)} ${esc(s.symbol)} at ${time(s.at)}`;
  const rows = c.differences
    .map(
      (d) =>
        `<tr><td>${esc(d.what)}</td><td>${side(d.run)}</td><td>${side(d.backtest)}</td><td>${d.cause === null ? '<b class="neg">no known cause</b>' : esc(d.cause)}</td></tr>`,
    )
    .join('');
  const pnl = c.realized
    .map(
      (p) =>
        `<tr><td>${esc(p.strategy)}</td><td>${formatUnits(BigInt(p.run), 18)}</td><td>${formatUnits(BigInt(p.backtest), 18)}</td><td>${p.differs === null ? 'the same' : p.differs.cause === null ? '<b class="neg">no known cause</b>' : esc(p.differs.cause)}</td></tr>`,
    )
    .join('');
  return `<h2>Compared with the ${c.run.mode} run</h2>
<p>${esc(c.run.file)}: ${c.run.fills} fills in this window, ${c.same} the same in the backtest${c.same > 0 ? ` (at most ${c.maxShiftMs} ms apart)` : ''}; ${c.differences.length - unknown} ${c.differences.length - unknown === 1 ? 'difference' : 'differences'} with a known cause, ${unknown} without${c.agree ? '.' : ': <b class="neg">the backtest and the run disagree</b>.'}</p>${
    rows === ''
      ? ''
      : `<table><thead><tr><th>fill</th><th>paper</th><th>backtest</th><th>cause</th></tr></thead><tbody>${rows}</tbody></table>`
  }${pnl === '' ? '' : `<table><thead><tr><th>realized</th><th>paper (ETH)</th><th>backtest (ETH)</th><th></th></tr></thead><tbody>${pnl}</tbody></table>`}`;
}

export function renderReportHtml(r: BacktestReport): string {
  const xs = r.series.at;
  const strategies = Object.entries(r.series.strategies);
  const equity = chart('Equity over time (ETH): realized + unrealized at the floor; total dashed', xs, [
    ...strategies.map(([id, s]) => ({ name: id, ys: s.equity.map(num) })),
    { name: 'total', ys: r.series.total.equity.map(num), dash: true },
  ]);
  const exposure = chart('Exposure (ETH): capital in open offers, cost of what is held', xs, [
    ...strategies.map(([id, s]) => ({ name: `${id} offers`, ys: s.offers.map(num) })),
    { name: 'total in offers', ys: r.series.total.offers.map(num), dash: true },
    { name: 'total held (cost)', ys: r.series.total.held.map(num), dash: true },
  ]);
  const floors = Object.entries(r.series.collections)
    .map(([slug, s]) =>
      chart(
        `${slug}: floor (ETH) with our fills — ▲ buy, ● offer filled, ▼ sold`,
        xs,
        [{ name: `${slug} floor`, ys: s.floor.map(num) }],
        r.fills
          .filter((f) => f.collection === slug)
          .map(fillMarker)
          .filter((m): m is Marker => m !== null),
      ),
    )
    .join('');
  const fills = r.fills
    .slice(0, 500)
    .map(
      (f) =>
        `<tr><td>${time(f.at)}</td><td>${esc(f.strategy)}</td><td>${f.kind}</td><td>${esc(f.collection ?? '')}</td><td>${esc(f.item ?? '')}</td><td>${formatUnits(BigInt(f.price), f.decimals)} ${esc(f.symbol)}</td><td>${formatUnits(BigInt(f.fees), f.decimals)}</td><td>${formatUnits(BigInt(f.gas), 18)}</td></tr>`,
    )
    .join('');
  const compared = r.comparison === undefined ? '' : comparisonHtml(r.comparison);
  const params = r.strategies
    .map(
      (s) => `<li><b>${esc(s.id)}</b> (${esc(s.module)}): <code>${esc(JSON.stringify(s.params))}</code></li>`,
    )
    .join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>harpoon backtest — ${esc(r.tape.file)}</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#111;max-width:1100px}
h1{font-size:20px}h2{font-size:16px;margin-top:28px}
table{border-collapse:collapse;margin:8px 0;font-variant-numeric:tabular-nums}
th,td{border-bottom:1px solid #ddd;padding:3px 8px;text-align:right}th:first-child,td:first-child{text-align:left}
td.neg{color:#b91c1c}figure{margin:16px 0}figcaption{font-weight:600;margin-bottom:4px}
svg{width:100%;height:auto;background:#fafafa;border:1px solid #eee}
.grid{stroke:#e5e5e5}.zero{stroke:#999;stroke-dasharray:2 2}
.ylab{font-size:10px;text-anchor:end;dominant-baseline:middle;fill:#555}.xlab{font-size:10px;fill:#555}.end{text-anchor:end}
.legend span{margin-right:14px;font-size:12px}.legend i{display:inline-block;width:12px;height:3px;margin-right:4px;vertical-align:middle}
.none{color:#777}code{font-size:12px}
</style></head><body>
<h1>Backtest of ${esc(r.tape.file)}</h1>
<p>${esc(r.tape.source)} tape on ${esc(r.tape.chain)}: ${esc(r.tape.collections.join(', '))}; replayed ${time(r.window.from)} → ${time(r.window.to)} UTC${r.window.warmupFrom !== undefined && r.window.warmupFrom < r.window.from ? ` (the market view warmed up from ${time(r.window.warmupFrom)})` : ''}, ${r.events} events, as ${esc(r.window.wallet)}, latency ${r.window.latencyMs} ms${r.interrupted ? '; <b>interrupted</b> (Ctrl-C): the report ends there' : ''}${r.tape.damaged ? `; <b>the tape is damaged</b>: replayed up to the damage, ${r.tape.unreadBytes} bytes after it not read` : r.tape.torn ? '; <b>the tape was cut</b> (replayed up to its last whole block)' : ''}.
Intents: ${esc(intentsText(r))}. Orders: ${r.orders.placed} placed, ${r.orders.filled} filled, ${r.orders.cancelled} cancelled, ${r.orders.expired} expired, ${r.orders.open} open at the end.
Amounts in ETH (ETH and WETH together).</p>${
    r.notOnTape.length === 0
      ? ''
      : `<p><b>Not replayed faithfully:</b> ${r.notOnTape
          .map((n) => `${esc(n.strategy)} read ${esc(n.reads.join(' and '))}`)
          .join('; ')}, which this tape does not hold: they decided without them (a live run may differ).</p>`
  }${costsWarnings(r)
    .map((w) => `<p><b>Costs not charged:</b> ${esc(w)}.</p>`)
    .join('')}
${
  r.wallet.length === 0
    ? ''
    : `<h2>Simulated wallet</h2>
<table><thead><tr><th>token</th><th>start</th><th>end</th><th>worth at start (ETH)</th><th>worth at end (ETH)</th></tr></thead><tbody>${r.wallet
        .map(
          (w) =>
            `<tr><td>${esc(w.symbol)}</td><td>${formatUnits(BigInt(w.start), w.decimals)}</td><td>${formatUnits(BigInt(w.end), w.decimals)}</td><td>${worth(w.startValue)}</td><td>${worth(w.endValue)}</td></tr>`,
        )
        .join(
          '',
        )}<tr><td><b>total</b></td><td></td><td></td><td><b>${worth(walletWorth(r.wallet, 'startValue'))}</b></td><td><b>${worth(walletWorth(r.wallet, 'endValue'))}</b></td></tr></tbody></table>`
}
${compared}
<h2>Per strategy</h2>${table('strategy', [...r.byStrategy, r.total])}
<h2>Per collection</h2>${table('collection', r.byCollection)}
<h2>Charts</h2>${equity}${exposure}${floors}
<h2>Fills${r.fills.length > 500 ? ' (first 500)' : ''}</h2>
${
  r.fills.length === 0
    ? '<p class="none">no fills: nothing was bought or sold in this window</p>'
    : `<table><thead><tr><th>time (UTC)</th><th>strategy</th><th>kind</th><th>collection</th><th>item</th><th>price</th><th>fees</th><th>gas (ETH)</th></tr></thead><tbody>${fills}</tbody></table>`
}
<h2>Parameters</h2><ul>${params}</ul>
</body></html>
`;
}
