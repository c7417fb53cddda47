// harpoon's dashboard: one page served by the daemon's control endpoint, no build step, no framework.
// Reads GET /api/snapshot once per connection and then the live events of GET /events (Server-Sent
// Events read with fetch, so the control token travels in the Authorization header). Everything that
// comes from the market (collection names, traits, reasons) is written with textContent, never as HTML.

(() => {
  const TOKEN_KEY = 'harpoon.controlToken';
  /** Rows a table shows at once; the rest is paged. */
  const PAGE = 200;
  const SERIES_MAX = 2000;
  const DECISIONS_MAX = 200;
  const ALERTS_MAX = 100;
  /** No byte from /events for this long (the server pings every 15 s): reconnect. */
  const STREAM_WATCHDOG_MS = 45_000;
  const COLORS = ['#2f7ed8', '#d9822b', '#3fa34d', '#c43c39', '#8e5fc9', '#1fa3a3', '#b5a02a', '#6b7280'];

  const byId = (id, root = document) => root.querySelector(`[data-testid="${id}"]`);

  const state = {
    token: null,
    status: null,
    series: [],
    pnlHistory: [],
    fills: { total: 0, rows: [] },
    fillIds: new Set(),
    /** Older pages of fills: [{ offset, rows }]; empty = the live first page. */
    fillPages: [],
    orders: new Map(),
    ordersPage: 0,
    ordersFilter: '',
    market: new Map(),
    decisions: [],
    decisionsProblemsOnly: false,
    alerts: [],
    seq: 0,
    view: 'overview',
    dirty: new Set(),
    charts: new Map(),
    stream: null,
  };

  // ---------- formatting ----------

  /** Whole-token decimal string, at most 5 decimals, trailing zeros dropped (no float arithmetic). */
  function amount(v) {
    if (v === null || v === undefined) return '—';
    const s = String(v);
    if (!s.includes('.')) return s;
    const [i, f = ''] = s.split('.');
    const t = f.slice(0, 5).replace(/0+$/, '');
    return t === '' ? i : `${i}.${t}`;
  }
  const money = (v, symbol) =>
    v === null || v === undefined ? '—' : symbol ? `${amount(v)} ${symbol}` : amount(v);
  const pad = (n) => String(n).padStart(2, '0');
  function clock(ms) {
    const d = new Date(ms);
    const t = `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
    return d.toDateString() === new Date().toDateString()
      ? t
      : `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${t}`;
  }
  function duration(ms) {
    if (ms === null || ms === undefined || !Number.isFinite(ms)) return '—';
    const neg = ms < 0 ? '-' : '';
    const a = Math.abs(ms);
    if (a < 1000) return `${neg}${Math.round(a)} ms`;
    if (a < 120_000) return `${neg}${(a / 1000).toFixed(1)} s`;
    if (a < 7_200_000) return `${neg}${Math.round(a / 60_000)} min`;
    if (a < 172_800_000) return `${neg}${(a / 3_600_000).toFixed(1)} h`;
    return `${neg}${Math.round(a / 86_400_000)} d`;
  }
  const short = (hash) =>
    typeof hash === 'string' && hash.length > 14 ? `${hash.slice(0, 8)}…${hash.slice(-4)}` : (hash ?? '—');
  const num = (v) => (v === null || v === undefined || v === '' ? null : Number(v));

  // ---------- DOM ----------

  function h(tag, props, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(props ?? {})) {
      if (v === undefined || v === null) continue;
      if (k === 'testid') e.dataset.testid = v;
      else if (k === 'class') e.className = v;
      else if (k === 'text') e.textContent = v;
      else if (k === 'data') Object.assign(e.dataset, v);
      else if (k === 'onclick') e.addEventListener('click', v);
      else e.setAttribute(k, v);
    }
    for (const c of kids) if (c !== null && c !== undefined) e.append(c);
    return e;
  }
  function setText(e, text) {
    if (e && e.textContent !== text) e.textContent = text;
  }
  function setAttr(e, name, value) {
    if (value === null || value === undefined) {
      if (e.hasAttribute(name)) e.removeAttribute(name);
    } else if (e.getAttribute(name) !== value) e.setAttribute(name, value);
  }
  /** A row with a cell per space-separated column name, each with data-col = its name. */
  function row(testid, cols) {
    return h('tr', { testid }, ...cols.split(' ').map((c) => h('td', { data: { col: c } })));
  }
  const cell = (tr, col) => tr.querySelector(`td[data-col="${col}"]`);
  /**
   * Makes `tbody` show `items` in order, reusing the row of each key (only changed text is written),
   * so a live update touches the rows that changed and nothing else.
   */
  function syncRows(tbody, items, keyOf, make, fill) {
    const old = new Map();
    for (const tr of tbody.children) old.set(tr.dataset.key, tr);
    let at = tbody.firstElementChild;
    const seen = new Map();
    for (const it of items) {
      // a key met again (data may repeat itself) gets its own row
      const base = keyOf(it);
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      const k = n === 0 ? base : `${base}\u0000${n}`;
      let tr = old.get(k);
      if (tr) old.delete(k);
      else {
        tr = make(it);
        tr.dataset.key = k;
      }
      if (tr === at) at = at.nextElementSibling;
      else tbody.insertBefore(tr, at);
      // filled once in the document, so that a chart inside it can measure its width
      fill(tr, it);
    }
    for (const tr of old.values()) tr.remove();
  }

  let toastTimer;
  function toast(text, bad = false) {
    const t = byId('toast');
    t.textContent = text;
    t.classList.toggle('bad', bad);
    t.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => {
      t.hidden = true;
    }, 6000);
  }

  // ---------- token and HTTP ----------

  function readToken() {
    const m = /(?:^#|&)token=([^&]+)/.exec(location.hash);
    if (m) {
      try {
        sessionStorage.setItem(TOKEN_KEY, decodeURIComponent(m[1]));
      } catch {
        // storage refused (private mode): the token lives in memory for this page only
        state.token = decodeURIComponent(m[1]);
      }
      history.replaceState(null, '', location.pathname + location.search);
    }
    try {
      return sessionStorage.getItem(TOKEN_KEY) ?? state.token;
    } catch {
      return state.token;
    }
  }

  class Unauthorized extends Error {}

  function authHeaders(extra) {
    return { authorization: `Bearer ${state.token}`, ...extra };
  }

  async function getJson(path) {
    const res = await fetch(path, { headers: authHeaders(), cache: 'no-store' });
    if (res.status === 401) throw new Unauthorized('the control token was refused');
    if (!res.ok) throw new Error(`${path}: HTTP ${res.status}`);
    return res.json();
  }

  async function post(path, body) {
    const res = await fetch(path, {
      method: 'POST',
      headers: authHeaders({ 'content-type': 'application/json' }),
      body: JSON.stringify(body ?? {}),
      cache: 'no-store',
    });
    if (res.status === 401) throw new Unauthorized('the control token was refused');
    let doc = null;
    try {
      doc = await res.json();
    } catch {
      // an answer that is not JSON: the status says enough
    }
    if (!res.ok || doc?.ok === false) throw new Error(doc?.error ?? `HTTP ${res.status}`);
    return doc?.result ?? null;
  }

  function askForToken(message) {
    state.stream?.stop();
    state.stream = null;
    try {
      sessionStorage.removeItem(TOKEN_KEY);
    } catch {
      // nothing stored
    }
    state.token = null;
    document.body.dataset.auth = 'none';
    const form = byId('token-form');
    form.hidden = false;
    setText(byId('token-error'), message ?? '');
    setConnection('offline');
    byId('token-input').focus();
  }

  function failed(e) {
    if (e instanceof Unauthorized) askForToken(e.message);
    else toast(e instanceof Error ? e.message : String(e), true);
  }

  // ---------- live events ----------

  /** Reads an event stream body: calls onEvent(name, data) per event, onBytes() per chunk (pings too). */
  async function readEvents(body, onEvent, onBytes) {
    const reader = body.pipeThrough(new TextDecoderStream()).getReader();
    let buf = '';
    let name = '';
    let data = [];
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      onBytes();
      buf += value;
      let nl = buf.indexOf('\n');
      while (nl >= 0) {
        let line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (line.endsWith('\r')) line = line.slice(0, -1);
        if (line === '') {
          if (data.length > 0) onEvent(name || 'message', data.join('\n'));
          name = '';
          data = [];
        } else if (!line.startsWith(':')) {
          const i = line.indexOf(':');
          const field = i < 0 ? line : line.slice(0, i);
          let v = i < 0 ? '' : line.slice(i + 1);
          if (v.startsWith(' ')) v = v.slice(1);
          if (field === 'event') name = v;
          else if (field === 'data') data.push(v);
        }
        nl = buf.indexOf('\n');
      }
    }
  }

  function setConnection(s) {
    const c = byId('connection');
    setText(c, s);
    c.dataset.state = s;
  }

  /** Connects to /events, loads the snapshot, applies events; reconnects with backoff (and a new snapshot). */
  function startStream() {
    let stopped = false;
    let ctrl = null;
    let attempt = 0;
    const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
    const loop = async () => {
      while (!stopped) {
        ctrl = new AbortController();
        let watchdog = null;
        const feed = () => {
          clearTimeout(watchdog);
          watchdog = setTimeout(() => ctrl.abort(), STREAM_WATCHDOG_MS);
        };
        try {
          const res = await fetch('/events', {
            headers: authHeaders({ accept: 'text/event-stream' }),
            signal: ctrl.signal,
            cache: 'no-store',
          });
          if (res.status === 401) throw new Unauthorized('the control token was refused');
          if (!res.ok || !res.body) throw new Error(`/events: HTTP ${res.status}`);
          feed();
          // events that arrive while the snapshot loads are applied after it
          const early = [];
          let buffering = true;
          const reading = readEvents(
            res.body,
            (name, data) => {
              if (buffering) early.push([name, data]);
              else onEvent(name, data);
            },
            feed,
          );
          // a stream that breaks while the snapshot loads is answered below (await reading)
          reading.catch(() => undefined);
          const snap = await getJson('/api/snapshot');
          performance.clearMarks('harpoon:snapshot-received');
          performance.mark('harpoon:snapshot-received');
          applySnapshot(snap);
          buffering = false;
          for (const [name, data] of early) onEvent(name, data, true);
          setConnection('live');
          attempt = 0;
          await reading;
          throw new Error('the event stream ended');
        } catch (e) {
          clearTimeout(watchdog);
          ctrl.abort();
          if (stopped) return;
          if (e instanceof Unauthorized) return askForToken(e.message);
          setConnection('reconnecting');
          attempt++;
          const delay = Math.min(15_000, 500 * 2 ** Math.min(attempt, 5)) * (0.75 + Math.random() * 0.5);
          await sleep(delay);
        }
      }
    };
    loop();
    return {
      stop() {
        stopped = true;
        ctrl?.abort();
      },
    };
  }

  function onEvent(name, data, replay = false) {
    let doc;
    try {
      doc = JSON.parse(data);
    } catch {
      return;
    }
    switch (name) {
      case 'status':
        state.status = doc;
        mark('status');
        break;
      case 'sample':
        addSample(doc);
        break;
      case 'fill':
        addFill(doc);
        break;
      case 'order':
        if (doc.state === 'gone') state.orders.delete(doc.orderHash);
        else state.orders.set(doc.orderHash, doc);
        mark('orders');
        break;
      case 'decision':
        addTo(state.decisions, doc, DECISIONS_MAX, replay);
        mark('decisions');
        break;
      case 'alert':
        addTo(state.alerts, doc, ALERTS_MAX, replay);
        mark('alerts');
        break;
      default:
        return;
    }
  }

  const signature = (d) => JSON.stringify([d.at, d.strategy, d.kind, d.outcome, d.reason, d.title, d.text]);
  function addTo(list, doc, max, replay) {
    if (replay) {
      const s = signature(doc);
      if (list.slice(0, 50).some((x) => signature(x) === s)) return;
    }
    list.unshift({ ...doc, seq: ++state.seq });
    if (list.length > max) list.length = max;
  }

  function addSample(s) {
    const last = state.series[state.series.length - 1];
    if (last && s.at <= last.at) return;
    state.series.push(s);
    if (state.series.length > SERIES_MAX) state.series.splice(0, state.series.length - SERIES_MAX);
    for (const f of s.floors ?? []) {
      const m = state.market.get(f.collection) ?? { collection: f.collection, traitFloors: [] };
      state.market.set(f.collection, {
        ...m,
        floor: f.floor,
        bestOffer: f.bestOffer,
      });
    }
    // the floors of the traits we bid on, fresher than the snapshot's table
    for (const t of s.traitFloors ?? []) {
      const m = state.market.get(t.collection) ?? { collection: t.collection, traitFloors: [] };
      const rest = (m.traitFloors ?? []).filter((x) => x.trait !== t.trait);
      state.market.set(t.collection, {
        ...m,
        traitFloors: [{ trait: t.trait, floor: t.floor, symbol: t.symbol }, ...rest],
      });
    }
    mark('series');
  }

  function addFill(f) {
    if (state.fillIds.has(f.id)) return;
    state.fillIds.add(f.id);
    state.fills.total++;
    // marked as just arrived: its row is highlighted for a moment
    state.fills.rows.unshift({ ...f, arrivedAt: Date.now() });
    if (state.fills.rows.length > PAGE) {
      for (const gone of state.fills.rows.splice(PAGE)) state.fillIds.delete(gone.id);
    }
    mark('fills');
  }

  function applySnapshot(s) {
    state.status = s.status;
    state.series = (s.series ?? []).slice(-SERIES_MAX);
    state.pnlHistory = (s.pnlHistory ?? []).slice(-SERIES_MAX);
    state.fills = { total: s.fills?.total ?? 0, rows: (s.fills?.rows ?? []).slice(0, PAGE) };
    state.fillIds = new Set(state.fills.rows.map((f) => f.id));
    state.orders = new Map((s.orders ?? []).map((o) => [o.orderHash, o]));
    state.market = new Map((s.market ?? []).map((m) => [m.collection, m]));
    const latest = state.series[state.series.length - 1];
    for (const f of latest?.floors ?? [])
      if (!state.market.has(f.collection)) state.market.set(f.collection, { ...f, traitFloors: [] });
    state.decisions = (s.decisions ?? []).map((d) => ({ ...d, seq: ++state.seq }));
    state.alerts = (s.alerts ?? []).map((a) => ({ ...a, seq: ++state.seq }));
    for (const k of ['status', 'series', 'fills', 'orders', 'decisions', 'alerts']) mark(k);
  }

  // ---------- rendering (batched: at most once per frame) ----------

  let scheduled = false;
  function mark(what) {
    state.dirty.add(what);
    if (scheduled) return;
    scheduled = true;
    // a frame when the page is visible; the timer when frames are throttled (hidden tab)
    requestAnimationFrame(flush);
    setTimeout(flush, 100);
  }

  function flush() {
    if (!scheduled) return;
    scheduled = false;
    const d = state.dirty;
    state.dirty = new Set();
    const v = state.view;
    if (d.has('status')) renderHeader();
    if (d.has('status') || d.has('series') || d.has('fills')) renderCards();
    if (d.has('fills')) renderFillCount();
    if (d.has('orders') || d.has('status')) setText(byId('orders-count'), `(${state.orders.size})`);
    if (d.has('alerts')) setText(byId('alerts-count'), state.alerts.length ? `(${state.alerts.length})` : '');
    // the budgets follow the status (every second); the charts only a new sample
    if (v === 'overview' && (d.has('status') || d.has('view'))) renderBudgets();
    if (v === 'overview' && (d.has('series') || d.has('view'))) renderOverviewCharts(d.has('view'));
    if (v === 'strategies' && (d.has('status') || d.has('view'))) renderStrategies();
    if (v === 'strategies' && (d.has('decisions') || d.has('view'))) renderDecisions();
    if (v === 'orders' && (d.has('orders') || d.has('status') || d.has('view'))) renderOrders();
    if (v === 'fills' && (d.has('fills') || d.has('view'))) renderFills();
    if (v === 'market' && (d.has('series') || d.has('orders') || d.has('view'))) renderMarket(d.has('view'));
    if (v === 'alerts' && (d.has('alerts') || d.has('view'))) renderAlerts();
    // for the benchmark and the curious: when data last reached the screen (one mark, replaced)
    performance.clearMarks('harpoon:rendered');
    performance.mark('harpoon:rendered');
  }

  function renderHeader() {
    const s = state.status;
    if (!s) return;
    const mode = byId('mode');
    setText(mode, s.mode === 'paper' ? 'PAPER' : 'LIVE');
    mode.dataset.mode = s.mode;
    // the browser tab says it too
    const title = `harpoon — ${s.risk?.killed ? 'KILLED' : s.risk?.paused ? 'paused' : s.state}, ${s.mode}`;
    if (document.title !== title) document.title = title;
    const st = byId('daemon-state');
    setText(st, s.state);
    st.dataset.state = s.state;
    setText(byId('uptime'), duration(s.uptimeMs));
    const ages = (s.stream?.channels ?? []).map((c) => c.ageMs).filter((a) => Number.isFinite(a));
    const worst = ages.length ? Math.max(...ages) : null;
    const fresh = byId('stream-freshness');
    setText(
      fresh,
      // the stalest collection's newest event decides whether the engine may trade
      `${s.stream?.state ?? '—'} · ${s.stream?.stale ? 'STALE' : 'fresh'}${worst !== null ? ` · ${duration(worst)}` : ''}`,
    );
    fresh.dataset.stale = String(Boolean(s.stream?.stale));
    const banner = byId('risk-banner');
    const killed = s.risk?.killed === true;
    const paused = s.risk?.paused === true;
    banner.hidden = !killed && !paused;
    banner.dataset.state = killed ? 'killed' : paused ? 'paused' : 'running';
    setText(
      banner,
      killed
        ? 'KILL SWITCH ENGAGED: no new intents; every open offer is being cancelled. Resume lifts it.'
        : paused
          ? 'PAUSED: no hooks run and no new intents; open orders stay. Resume lifts it.'
          : '',
    );
    byId('resume-all').disabled = !killed && !paused;
    byId('pause-all').disabled = paused || killed;
  }

  function perSymbol(list, field) {
    if (!list || list.length === 0) return '—';
    return list.map((x) => `${amount(x[field])} ${x.symbol}`).join(', ');
  }

  function renderCards() {
    const s = state.status;
    const last = state.series[state.series.length - 1];
    if (last) {
      setText(byId('pnl-realized'), perSymbol(last.pnl, 'realized'));
      setText(byId('pnl-unrealized'), perSymbol(last.pnl, 'unrealized'));
      // paper mode's wallet is simulated (its start plus every paper fill): said so
      const held = perSymbol(last.balances, 'amount');
      setText(byId('balances'), s?.mode === 'paper' ? `simulated: ${held}` : held);
    }
    if (s) {
      setText(
        byId('exposure'),
        s.spend.length === 0
          ? 'none'
          : s.spend
              .map(
                (b) =>
                  `${amount(b.exposure)}${b.maxExposure !== null ? ` of ${amount(b.maxExposure)}` : ''} ${b.symbol}`,
              )
              .join(', '),
      );
      setText(byId('open-offers'), `${s.risk.openOffers} open offer(s) counted`);
      setText(byId('wallet'), `${s.wallet} · ${s.chain.name} (${s.chain.chainId})`);
      const i = s.intents;
      setText(
        byId('intents'),
        `${i.emitted} proposed → ${i.accepted} passed risk → ${i.done} done, ${i.failed} failed, ${i.rejected} refused, ${i.queued} waiting`,
      );
    }
    setText(byId('fills-total'), String(state.fills.total));
  }

  function renderFillCount() {
    setText(byId('fills-count'), `(${state.fills.total})`);
  }

  function meter(value, max) {
    return h('meter', {
      min: '0',
      max: String(max),
      value: String(Math.min(value, max)),
      high: String(0.8 * max),
    });
  }
  function limitCell(td, used, max) {
    const text = amount(max);
    if (td.dataset.v === `${used}|${max}`) return;
    td.dataset.v = `${used}|${max}`;
    td.replaceChildren(text);
    const u = num(used);
    const m = num(max);
    if (u !== null && m !== null && m > 0) td.append(' ', meter(u, m), ` ${Math.round((100 * u) / m)} %`);
  }

  function renderBudgets() {
    const s = state.status;
    if (s) {
      syncRows(
        byId('budgets').tBodies[0],
        s.spend,
        (b) => b.account,
        () => row('budget-row', 'account spentToday perDay spentTotal budget exposure maxExposure'),
        (tr, b) => {
          setText(cell(tr, 'account'), b.symbol);
          setText(cell(tr, 'spentToday'), amount(b.spentToday));
          limitCell(cell(tr, 'perDay'), b.spentToday, b.maxSpendPerDay);
          setText(cell(tr, 'spentTotal'), amount(b.spentTotal));
          limitCell(cell(tr, 'budget'), b.spentTotal, b.budget);
          setText(cell(tr, 'exposure'), amount(b.exposure));
          limitCell(cell(tr, 'maxExposure'), b.exposure, b.maxExposure);
        },
      );
    }
  }

  function renderOverviewCharts(resized) {
    const xs = state.series.map((x) => x.at / 1000);
    // realized PnL before the first sample: the cumulative value after each earlier sale
    const start = state.series[0]?.at ?? Number.POSITIVE_INFINITY;
    const earlier = state.pnlHistory.filter((p) => p.at < start);
    const symbols = [
      ...new Set([
        ...earlier.map((p) => p.symbol),
        ...state.series.flatMap((x) => (x.pnl ?? []).map((p) => p.symbol)),
      ]),
    ];
    const carried = new Map();
    const before = earlier.map((p) => {
      carried.set(p.symbol, p.realized);
      return new Map(carried);
    });
    chart(
      'pnl',
      byId('chart-pnl'),
      symbols.flatMap((sym) => [
        {
          label: `realized ${sym}`,
          values: [
            ...before.map((m) => num(m.get(sym))),
            ...state.series.map((x) => num(x.pnl?.find((p) => p.symbol === sym)?.realized)),
          ],
        },
        {
          label: `unrealized ${sym}`,
          dash: [6, 4],
          values: [
            ...before.map(() => null),
            ...state.series.map((x) => num(x.pnl?.find((p) => p.symbol === sym)?.unrealized)),
          ],
        },
      ]),
      [...earlier.map((p) => p.at / 1000), ...xs],
      resized,
    );
    const groups = [...new Set(state.series.flatMap((x) => (x.rate ?? []).map((r) => r.group)))];
    chart(
      'rate',
      byId('chart-rate'),
      groups.map((g) => ({
        label: `${g} %`,
        values: state.series.map((x) => {
          const r = x.rate?.find((y) => y.group === g);
          return r && r.limit > 0 ? (100 * r.available) / r.limit : null;
        }),
      })),
      xs,
      resized,
      [],
      [0, 100],
    );
    chart(
      'stream',
      byId('chart-stream'),
      [
        {
          label: 'age s',
          values: state.series.map((x) => (x.streamAgeMs === null ? null : x.streamAgeMs / 1000)),
        },
      ],
      xs,
      resized,
    );
  }

  /**
   * Draws (or updates) the uPlot chart `key` in `box`. `lines` are { label, values, dash?, color? };
   * `marks` are horizontal lines { value, color, label } drawn over the plot (our orders' prices).
   */
  function chart(key, box, lines, xs, resized, marks = [], fixedRange = null) {
    if (typeof window.uPlot !== 'function') {
      setText(box, 'charts unavailable (uPlot did not load)');
      return;
    }
    const sig = lines.map((l) => l.label).join('|');
    let c = state.charts.get(key);
    if (c && (c.sig !== sig || c.box !== box)) {
      c.plot.destroy();
      c = undefined;
    }
    const data = [xs, ...lines.map((l) => l.values)];
    const width = Math.max(300, box.clientWidth || 600);
    if (!c) {
      box.replaceChildren();
      const holder = { marks };
      const plot = new window.uPlot(
        {
          width,
          height: 200,
          scales: {
            x: { time: true },
            y: {
              range: (_u, min, max) => {
                if (fixedRange) return fixedRange;
                let lo = min;
                let hi = max;
                for (const m of holder.marks) {
                  if (lo === null || m.value < lo) lo = m.value;
                  if (hi === null || m.value > hi) hi = m.value;
                }
                if (lo === null || hi === null) return [0, 1];
                const padY = (hi - lo) * 0.08 || Math.abs(hi) * 0.1 || 1;
                return [lo - padY, hi + padY];
              },
            },
          },
          series: [
            {},
            ...lines.map((l, i) => ({
              label: l.label,
              stroke: l.color ?? COLORS[i % COLORS.length],
              width: 1.5,
              spanGaps: true,
              ...(l.dash ? { dash: l.dash } : {}),
            })),
          ],
          axes: [{}, { size: 64 }],
          cursor: { drag: { x: false, y: false } },
          hooks: {
            draw: [
              (u) => {
                const ctx = u.ctx;
                for (const m of holder.marks) {
                  const y = u.valToPos(m.value, 'y', true);
                  ctx.save();
                  ctx.strokeStyle = m.color;
                  ctx.setLineDash([4, 3]);
                  ctx.lineWidth = devicePixelRatio;
                  ctx.beginPath();
                  ctx.moveTo(u.bbox.left, y);
                  ctx.lineTo(u.bbox.left + u.bbox.width, y);
                  ctx.stroke();
                  ctx.restore();
                }
              },
            ],
          },
        },
        data,
        box,
      );
      c = { plot, sig, box, holder, width };
      state.charts.set(key, c);
      return;
    }
    c.holder.marks = marks;
    c.plot.setData(data);
    if (resized || c.width !== width) {
      c.width = width;
      c.plot.setSize({ width, height: 200 });
    }
  }

  function renderStrategies() {
    const s = state.status;
    if (!s) return;
    syncRows(
      byId('strategies').tBodies[0],
      s.strategies,
      (x) => x.id,
      (x) => {
        const tr = row('strategy-row', 'id module state hooks intents errors lastError action');
        tr.dataset.strategy = x.id;
        cell(tr, 'action').append(
          h('button', { type: 'button', testid: 'strategy-toggle', data: { strategy: x.id } }),
        );
        return tr;
      },
      (tr, x) => {
        setText(cell(tr, 'id'), x.id);
        setText(cell(tr, 'module'), `${x.module} ${x.version}`);
        setText(cell(tr, 'state'), x.state);
        tr.dataset.state = x.state;
        setText(cell(tr, 'hooks'), String(x.hooksRun));
        setText(cell(tr, 'intents'), String(x.intents));
        setText(cell(tr, 'errors'), String(x.errors));
        setText(cell(tr, 'lastError'), x.lastError ?? '');
        const b = cell(tr, 'action').firstElementChild;
        // a paused strategy resumes; one disabled by its errors is enabled again the same way
        const off = x.state === 'paused' || x.state === 'disabled';
        setText(b, off ? 'Resume' : 'Pause');
        b.dataset.action = off ? 'resume' : 'pause';
        b.disabled = x.state === 'stopped';
      },
    );
  }

  function renderDecisions() {
    const items = (
      state.decisionsProblemsOnly ? state.decisions.filter((d) => d.outcome !== 'done') : state.decisions
    ).slice(0, PAGE);
    syncRows(
      byId('decisions').tBodies[0],
      items,
      (d) => String(d.seq),
      () => row('decision-row', 'at strategy kind target outcome reason'),
      (tr, d) => {
        setText(cell(tr, 'at'), clock(d.at));
        setText(cell(tr, 'strategy'), d.strategy);
        setText(cell(tr, 'kind'), d.kind);
        setText(cell(tr, 'target'), d.target ?? '');
        setText(cell(tr, 'outcome'), d.outcome);
        tr.dataset.outcome = d.outcome;
        setText(cell(tr, 'reason'), d.reason ?? '');
      },
    );
  }

  function visibleOrders() {
    const f = state.ordersFilter.trim().toLowerCase();
    const all = [...state.orders.values()];
    const list = f
      ? all.filter((o) =>
          [o.strategy, o.side, o.target, o.collection, o.state, o.orderHash].some((x) =>
            String(x ?? '')
              .toLowerCase()
              .includes(f),
          ),
        )
      : all;
    return list.sort((a, b) => b.createdAt - a.createdAt || (a.orderHash < b.orderHash ? -1 : 1));
  }

  function renderOrders() {
    const list = visibleOrders();
    const pages = Math.max(1, Math.ceil(list.length / PAGE));
    if (state.ordersPage >= pages) state.ordersPage = pages - 1;
    const from = state.ordersPage * PAGE;
    const items = list.slice(from, from + PAGE);
    setText(
      byId('orders-range'),
      list.length ? `${from + 1}–${from + items.length} of ${list.length}` : 'none open',
    );
    byId('orders-prev').disabled = state.ordersPage === 0;
    byId('orders-next').disabled = from + PAGE >= list.length;
    const now = Date.now();
    syncRows(
      byId('orders').tBodies[0],
      items,
      (o) => o.orderHash,
      (o) => {
        const tr = row('order-row', 'strategy side target price quantity state age expires best rank action');
        tr.dataset.hash = o.orderHash;
        cell(tr, 'action').append(
          h('button', {
            type: 'button',
            testid: 'order-cancel',
            data: { hash: o.orderHash },
            text: 'Cancel',
          }),
        );
        return tr;
      },
      (tr, o) => {
        setText(cell(tr, 'strategy'), o.strategy);
        setText(cell(tr, 'side'), o.side);
        setText(cell(tr, 'target'), o.target);
        setText(cell(tr, 'price'), money(o.price, o.symbol));
        setText(cell(tr, 'quantity'), o.quantity);
        setText(cell(tr, 'state'), o.state);
        tr.dataset.state = o.state;
        setText(cell(tr, 'age'), duration(now - o.createdAt));
        setText(cell(tr, 'expires'), duration(o.expiresAt - now));
        setText(cell(tr, 'best'), money(o.bestCompeting, o.symbol));
        setText(
          cell(tr, 'rank'),
          o.rank === null || o.rank === undefined ? '—' : o.rank === 1 ? '1 (best)' : String(o.rank),
        );
        setAttr(tr, 'data-rank', o.rank === null || o.rank === undefined ? null : String(o.rank));
        cell(tr, 'action').firstElementChild.disabled = o.state === 'cancelling';
      },
    );
  }

  function fillWhat(f) {
    const item = `${f.collection ?? ''}${f.tokenId !== null && f.tokenId !== undefined ? ` #${f.tokenId}` : ''}`;
    // "bought harpoon-apes #12 · offer filled", "sold harpoon-apes #12 ×2 · listing sold"
    return `${f.side === 'sell' ? 'sold' : 'bought'}${item ? ` ${item}` : ''}${f.quantity !== '1' ? ` ×${f.quantity}` : ''} · ${String(f.kind).replace(/_/g, ' ')}`;
  }

  function renderFills() {
    const page = state.fillPages[state.fillPages.length - 1];
    const rows = page ? page.rows : state.fills.rows;
    const offset = page ? page.offset : 0;
    setText(
      byId('fills-range'),
      rows.length ? `${offset + 1}–${offset + rows.length} of ${state.fills.total}` : 'no fills yet',
    );
    byId('fills-prev').disabled = !page;
    byId('fills-next').disabled = offset + rows.length >= state.fills.total || rows.length === 0;
    syncRows(
      byId('fills').tBodies[0],
      rows,
      (f) => f.id,
      (f) => {
        const tr = row('fill-row', 'at strategy what price fees gas tx realized');
        tr.dataset.fillId = f.id;
        if (f.arrivedAt !== undefined && Date.now() - f.arrivedAt < 3000) {
          tr.classList.add('fresh');
          setTimeout(() => tr.classList.remove('fresh'), 3000);
        }
        return tr;
      },
      (tr, f) => {
        setText(cell(tr, 'at'), clock(f.at));
        setText(cell(tr, 'strategy'), f.strategy);
        setText(cell(tr, 'what'), fillWhat(f));
        setText(cell(tr, 'price'), money(f.price, f.symbol));
        setText(cell(tr, 'fees'), money(f.fees, f.symbol));
        setText(cell(tr, 'gas'), `${amount(f.gas)} ETH`);
        const tx = cell(tr, 'tx');
        setText(tx, short(f.txHash));
        setAttr(tx, 'title', f.txHash ?? null);
        setText(cell(tr, 'realized'), f.realized === null ? '—' : money(f.realized, f.symbol));
        setAttr(tr, 'data-sign', f.realized === null ? null : f.realized.startsWith('-') ? 'loss' : 'gain');
      },
    );
  }

  async function fillsOlder() {
    const page = state.fillPages[state.fillPages.length - 1];
    const rows = page ? page.rows : state.fills.rows;
    const last = rows[rows.length - 1];
    if (!last) return;
    try {
      const r = await getJson(`/api/fills?before=${encodeURIComponent(last.id)}&limit=${PAGE}`);
      if (r.rows.length === 0) return;
      state.fillPages.push({ offset: (page ? page.offset : 0) + rows.length, rows: r.rows });
      state.fills.total = Math.max(state.fills.total, r.total);
      mark('fills');
    } catch (e) {
      failed(e);
    }
  }

  function renderMarket(resized) {
    const root = byId('market');
    const now = [...state.market.values()].sort((a, b) => (a.collection < b.collection ? -1 : 1));
    if (now.length === 0) {
      setText(root, 'no market data yet');
      return;
    }
    if (root.firstChild?.nodeType === Node.TEXT_NODE) root.replaceChildren();
    const xs = state.series.map((x) => x.at / 1000);
    syncRows(
      root,
      now,
      (m) => m.collection,
      () =>
        h(
          'div',
          { class: 'panel', testid: 'market-collection' },
          h('h2', { class: 'name', data: { col: 'name' } }),
          h('div', { class: 'muted', data: { col: 'now' } }),
          h('div', { class: 'chart', data: { col: 'chart' } }),
          h(
            'div',
            { class: 'traits' },
            h(
              'table',
              { testid: 'trait-floors' },
              h('thead', null, h('tr', null, h('th', { text: 'trait' }), h('th', { text: 'floor' }))),
              h('tbody'),
            ),
          ),
        ),
      (card, m) => {
        card.dataset.collection = m.collection;
        const q = (c) => card.querySelector(`[data-col="${c}"]`);
        setText(q('name'), m.collection);
        const ours = [...state.orders.values()].filter((o) => o.collection === m.collection);
        setText(
          q('now'),
          `floor ${money(m.floor, m.symbol)} · best offer ${money(m.bestOffer, m.symbol)} · our orders ${ours.length} (offers: green, listings: orange)`,
        );
        // the traits our trait offers bid on, over time
        const traitsOf = (x) => (x.traitFloors ?? []).filter((t) => t.collection === m.collection);
        const traitNames = [...new Set(state.series.flatMap((x) => traitsOf(x).map((t) => t.trait)))].slice(
          0,
          6,
        );
        const at = (x) => (x.floors ?? []).find((f) => f.collection === m.collection);
        const levels = [...new Set(ours.map((o) => `${o.side}|${o.price}`))].slice(0, 50).map((k) => {
          const [side, price] = k.split('|');
          return { value: Number(price), color: side === 'listing' ? '#d9822b' : '#3fa34d' };
        });
        chart(
          `market:${m.collection}`,
          q('chart'),
          [
            { label: 'floor', color: '#2f7ed8', values: state.series.map((x) => num(at(x)?.floor)) },
            { label: 'best offer', color: '#8e5fc9', values: state.series.map((x) => num(at(x)?.bestOffer)) },
            ...traitNames.map((t, i) => ({
              label: t,
              dash: [2, 3],
              color: COLORS[(i + 4) % COLORS.length],
              values: state.series.map((x) => num(traitsOf(x).find((y) => y.trait === t)?.floor)),
            })),
          ],
          xs,
          resized,
          levels,
        );
        syncRows(
          card.querySelector('[data-testid="trait-floors"] tbody'),
          (m.traitFloors ?? []).slice(0, PAGE),
          (t) => t.trait,
          () => row('trait-floor-row', 'trait floor'),
          (tr, t) => {
            setText(cell(tr, 'trait'), t.trait);
            setText(cell(tr, 'floor'), money(t.floor, t.symbol));
          },
        );
      },
    );
  }

  function renderAlerts() {
    syncRows(
      byId('alerts').tBodies[0],
      state.alerts,
      (a) => String(a.seq),
      () => row('alert-row', 'at severity kind title text'),
      (tr, a) => {
        setText(cell(tr, 'at'), clock(a.at));
        setText(cell(tr, 'severity'), a.severity);
        tr.dataset.severity = a.severity;
        setText(cell(tr, 'kind'), a.kind);
        setText(cell(tr, 'title'), a.title);
        setText(cell(tr, 'text'), a.text);
      },
    );
  }

  // ---------- actions ----------

  /** Asks before a switch is pulled; resolves to { reason } or null when cancelled. */
  function confirmAction(text, withReason = false) {
    const dlg = byId('confirm-dialog');
    setText(byId('confirm-text'), text);
    byId('confirm-reason-label').hidden = !withReason;
    const reason = byId('confirm-reason');
    reason.value = '';
    return new Promise((resolve) => {
      const done = (ok) => {
        byId('confirm-ok').removeEventListener('click', yes);
        byId('confirm-cancel').removeEventListener('click', no);
        dlg.removeEventListener('cancel', no);
        dlg.close();
        resolve(ok ? { reason: reason.value.trim() } : null);
      };
      const yes = () => done(true);
      const no = () => done(false);
      byId('confirm-ok').addEventListener('click', yes);
      byId('confirm-cancel').addEventListener('click', no);
      dlg.addEventListener('cancel', no);
      dlg.showModal();
    });
  }

  async function act(text, path, opts = {}) {
    const ok = await confirmAction(text, opts.reason === true);
    if (!ok) return;
    try {
      await post(path, opts.reason ? { reason: ok.reason || 'dashboard' } : {});
      toast(`${opts.done ?? 'done'}`);
    } catch (e) {
      if (e instanceof Unauthorized) failed(e);
      else toast(`${opts.label ?? path} failed: ${e.message}`, true);
    }
  }

  function wire() {
    byId('kill').addEventListener('click', () =>
      act(
        'Pull the kill switch? No new intents, and every open offer of ours is cancelled on the marketplace. It stays engaged (also across restarts) until Resume.',
        '/kill',
        {
          reason: true,
          label: 'kill',
          done: 'kill switch engaged',
        },
      ),
    );
    byId('pause-all').addEventListener('click', () =>
      act('Pause the daemon? No hooks run and no new intents; open orders stay as they are.', '/pause', {
        label: 'pause',
        done: 'paused',
      }),
    );
    byId('resume-all').addEventListener('click', () =>
      act('Resume trading? This lifts the pause and the kill switch.', '/resume', {
        label: 'resume',
        done: 'resumed',
      }),
    );
    byId('strategies').addEventListener('click', (ev) => {
      const b = ev.target.closest('[data-testid="strategy-toggle"]');
      if (!b) return;
      const id = b.dataset.strategy;
      const what = b.dataset.action === 'resume' ? 'resume' : 'pause';
      act(
        `${what === 'pause' ? 'Pause' : 'Resume'} the strategy ${id}?`,
        `/strategies/${encodeURIComponent(id)}/${what}`,
        {
          label: `${what} ${id}`,
          done: `${id}: ${what === 'pause' ? 'paused' : 'resumed'}`,
        },
      );
    });
    byId('orders').addEventListener('click', (ev) => {
      const b = ev.target.closest('[data-testid="order-cancel"]');
      if (!b) return;
      const o = state.orders.get(b.dataset.hash);
      const what = o ? `${o.side} ${o.target} at ${money(o.price, o.symbol)}` : b.dataset.hash;
      act(`Cancel our ${what}?`, `/orders/${encodeURIComponent(b.dataset.hash)}/cancel`, {
        label: 'cancel',
        done: 'cancel requested',
      });
    });
    byId('orders-filter').addEventListener('input', (ev) => {
      state.ordersFilter = ev.target.value;
      state.ordersPage = 0;
      mark('orders');
    });
    byId('orders-prev').addEventListener('click', () => {
      state.ordersPage = Math.max(0, state.ordersPage - 1);
      mark('orders');
    });
    byId('orders-next').addEventListener('click', () => {
      state.ordersPage++;
      mark('orders');
    });
    byId('fills-next').addEventListener('click', fillsOlder);
    byId('fills-prev').addEventListener('click', () => {
      state.fillPages.pop();
      mark('fills');
    });
    byId('decisions-problems').addEventListener('change', (ev) => {
      state.decisionsProblemsOnly = ev.target.checked;
      byId('decisions').tBodies[0].replaceChildren();
      mark('decisions');
    });
    for (const b of byId('tabs').querySelectorAll('button[data-view]'))
      b.addEventListener('click', () => show(b.dataset.view));
    byId('token-form').addEventListener('submit', (ev) => {
      ev.preventDefault();
      const t = byId('token-input').value.trim();
      if (!t) return;
      try {
        sessionStorage.setItem(TOKEN_KEY, t);
      } catch {
        // kept in memory only
      }
      state.token = t;
      byId('token-input').value = '';
      byId('token-form').hidden = true;
      connect();
    });
    // an address with #token= opened over this page (same document: no reload)
    addEventListener('hashchange', () => {
      const t = readToken();
      if (t && t !== state.token) {
        state.token = t;
        byId('token-form').hidden = true;
        connect();
      }
    });
    let resizeTimer;
    addEventListener('resize', () => {
      clearTimeout(resizeTimer);
      resizeTimer = setTimeout(() => mark('view'), 150);
    });
    // ages and expiries move with the clock
    setInterval(() => {
      if (state.view === 'orders') mark('orders');
    }, 1000);
  }

  function show(view) {
    state.view = view;
    for (const s of document.querySelectorAll('section.view')) s.hidden = s.dataset.view !== view;
    for (const b of byId('tabs').querySelectorAll('button[data-view]'))
      b.setAttribute('aria-selected', String(b.dataset.view === view));
    mark('view');
  }

  function connect() {
    document.body.dataset.auth = 'token';
    setConnection('connecting');
    state.stream?.stop();
    state.stream = startStream();
  }

  wire();
  // the first view: `#fills`, or `view=fills` beside the token (`#token=…&view=fills`)
  const initial = /^#?([a-z]+)$/.exec(location.hash)?.[1] ?? /(?:^#|&)view=([a-z]+)/.exec(location.hash)?.[1];
  state.token = readToken();
  show(['strategies', 'orders', 'fills', 'market', 'alerts'].includes(initial) ? initial : 'overview');
  if (state.token) connect();
  else askForToken();
})();
