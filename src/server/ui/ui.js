/*
 * ui.js - the /ui page: polls the JSON API of `saltbox serve` (src/server/ui.c)
 * about once a second and draws the table list, the verdict banner (the
 * server's sbx_hotspot_compute: words and colour as `saltbox keyviz`), the
 * heatmap by key (an SVG the server draws with the renderer `saltbox keyviz`
 * uses: equal-count buckets of the sampled keys, region boundaries, hover
 * text), the heatmap by region (x = time buckets, y = regions in key order,
 * colour = load relative to the brightest cell), per-server load bars and
 * the region table. Hot regions carry the class "hot" (the hottest also
 * "hottest") in the heatmap and the region table. Text from the store is only
 * ever set through textContent / attributes, never parsed as HTML; the key
 * heatmap is parsed as SVG (image/svg+xml, the server escapes every key).
 */
'use strict';

const REFRESH_MS = 1000;
const TABLES_EVERY = 5; /* refresh the table list every 5th tick */
const SVG = 'http://www.w3.org/2000/svg';

const state = {
  table: null,
  metric: 'ops',
  buckets: 60,
  paused: false,
  ticks: 0,
  tables: [],
};

function $(id) { return document.getElementById(id); }

function el(tag, attrs, text) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

function svg(tag, attrs, text) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

async function getJSON(path) {
  const r = await fetch(path, { cache: 'no-store' });
  const body = await r.json();
  if (!r.ok) throw new Error(body.error || r.statusText);
  return body;
}

function api(table, view) {
  return '/ui/api/table/' + encodeURIComponent(table) + '/' + view;
}

/* ---- formatting ---------------------------------------------------------- */

function fmtCount(n) {
  if (n >= 1e9) return (n / 1e9).toFixed(1) + 'G';
  if (n >= 1e6) return (n / 1e6).toFixed(1) + 'M';
  if (n >= 1e4) return (n / 1e3).toFixed(1) + 'k';
  return String(n);
}

function fmtBytes(n) {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) { n /= 1024; i++; }
  return (i ? n.toFixed(1) : String(n)) + ' ' + units[i];
}

function fmtTime(ms) {
  return new Date(ms).toLocaleTimeString([], { hour12: false });
}

function fmtSpan(ms) {
  if (ms >= 60000 && ms % 60000 === 0) return (ms / 60000) + ' min';
  return (ms / 1000) + ' s';
}

function metricUnit(metric) {
  return metric.indexOf('bytes') >= 0 ? 'bytes' : metric;
}

/* Label of a heatmap row: the start key's prefix, as HBase prints keys. */
function keyLabel(key) {
  if (key === '') return '(start)';
  return key.length > 18 ? key.slice(0, 17) + '\u2026' : key;
}

function rangeText(row) {
  return '[' + (row.start_key || '(start)') + ', ' + (row.end_key || '(end)') + ')';
}

/* Dark to bright (plasma), t in [0, 1]; zero load stays near black. */
const STOPS = [[13, 8, 135], [126, 3, 168], [204, 71, 120], [248, 149, 64], [240, 249, 33]];
function heatColor(t) {
  if (t <= 0) return '#15161c';
  const x = Math.min(t, 1) * (STOPS.length - 1);
  const i = Math.min(Math.floor(x), STOPS.length - 2);
  const f = x - i;
  const c = STOPS[i].map((a, k) => Math.round(a + (STOPS[i + 1][k] - a) * f));
  return 'rgb(' + c.join(',') + ')';
}

/* ---- the table list ---------------------------------------------------------- */

function renderTables(list) {
  state.tables = list.tables;
  const ul = $('tables');
  ul.replaceChildren();
  for (const t of list.tables) {
    const li = el('li', { 'data-table': t.name });
    if (t.name === state.table) li.className = 'selected';
    const a = el('a', { href: '#table=' + encodeURIComponent(t.name) }, t.name + ' ');
    a.appendChild(el('span', { class: 'count' },
      t.regions + (t.regions === 1 ? ' region' : ' regions')));
    li.appendChild(a);
    ul.appendChild(li);
  }
  $('no-tables').hidden = list.tables.length > 0;
}

/* ---- the server panel -------------------------------------------------------- */

function renderServer(s) {
  const g = s.group_commit;
  $('gc-requests').textContent = g.enabled
    ? fmtCount(g.requests) + ' in ' + fmtCount(g.batches) + ' commits'
    : 'off (each request written alone)';
  $('gc-per-commit').textContent = g.enabled && g.batches
    ? (g.requests / g.batches).toFixed(1) + ' mean, ' + fmtCount(g.largest) + ' most'
    : '\u2013';
  $('open-scanners').textContent =
    fmtCount(s.scanners.open) + ' of ' + fmtCount(s.scanners.max);
}

function tableFromHash() {
  const m = /(?:^#|&)table=([^&]*)/.exec(location.hash);
  return m ? decodeURIComponent(m[1]) : null;
}

/* ---- the heatmap ------------------------------------------------------------- */

function renderHeatmap(h) {
  const n = h.rows.length;
  const labelW = 150, tagW = 48, axisH = 22;
  const cellW = Math.max(2, Math.min(16, Math.floor(840 / Math.max(h.buckets, 1))));
  const rowH = Math.max(3, Math.min(26, Math.floor(360 / Math.max(n, 1))));
  const labelEvery = Math.ceil(11 / rowH);
  const width = labelW + h.buckets * cellW + tagW;
  const height = n * rowH + axisH;
  const root = svg('svg', { width, height, viewBox: `0 0 ${width} ${height}`,
                            'data-metric': h.metric });
  h.rows.forEach((row, i) => {
    const cls = ['row'];
    if (row.hot) cls.push('hot');
    if (i === h.hottest) cls.push('hottest');
    const g = svg('g', { class: cls.join(' '), 'data-start-key': row.start_key,
                         'data-region-index': i });
    const y = i * rowH;
    if (i % labelEvery === 0 || row.hot)
      g.appendChild(svg('text', { class: 'label', x: labelW - 6, y: y + rowH / 2 + 4,
                                  'text-anchor': 'end' }, keyLabel(row.start_key)));
    row.values.forEach((v, k) => {
      const r = svg('rect', { x: labelW + k * cellW, y, width: cellW, height: rowH,
                              fill: heatColor(h.max ? v / h.max : 0) });
      r.appendChild(svg('title', {}, rangeText(row) + ' on ' + row.server + '\n' +
        fmtTime(h.start_ms + k * h.bucket_ms) + ': ' + v + ' ' + metricUnit(h.metric)));
      g.appendChild(r);
    });
    if (row.hot) {
      g.appendChild(svg('rect', { class: 'hot-outline', x: labelW + 1, y: y + 1,
                                  width: h.buckets * cellW - 2, height: rowH - 2 }));
      g.appendChild(svg('text', { class: 'hot-tag', x: labelW + h.buckets * cellW + 6,
                                  y: y + rowH / 2 + 4 }, 'HOT'));
    }
    root.appendChild(g);
  });
  const span = h.buckets * h.bucket_ms;
  const axisY = n * rowH + 15;
  root.appendChild(svg('text', { x: labelW, y: axisY }, '-' + fmtSpan(span)));
  root.appendChild(svg('text', { x: labelW + (h.buckets * cellW) / 2, y: axisY,
                                 'text-anchor': 'middle' }, '-' + fmtSpan(span / 2)));
  root.appendChild(svg('text', { x: labelW + h.buckets * cellW, y: axisY,
                                 'text-anchor': 'end' }, 'now'));
  $('heatmap').replaceChildren(root);

  const legend = $('legend');
  const scale = el('span', { class: 'scale' });
  scale.style.background = 'linear-gradient(to right, ' +
    [0.02, 0.25, 0.5, 0.75, 1].map(heatColor).join(', ') + ')';
  legend.replaceChildren(el('span', {}, '0'), scale,
    el('span', {}, fmtCount(h.max) + ' ' + metricUnit(h.metric) + ' per ' +
       fmtSpan(h.bucket_ms) + ' bucket (brightest cell)'));
}

/* The banner says the server's verdict (docs/hotspots.md), in its words
 * and colour: hot (red), uneven (amber), even (green), idle. */
function renderBanner(h) {
  const b = $('hot-banner');
  const v = h.verdict;
  const span = fmtSpan(h.buckets * h.bucket_ms);
  b.className = v.level;
  b.setAttribute('data-verdict', v.level);
  b.style.borderLeftColor = v.color;
  const word = el('span', { class: 'verdict-word' }, v.level);
  word.style.color = v.color;
  if (v.level === 'idle') {
    b.removeAttribute('data-start-key');
    b.replaceChildren(word, document.createTextNode(
      ': no ' + h.metric + ' in the last ' + span + '.'));
    return;
  }
  let lead;
  if (h.hottest !== null) {
    const row = h.rows[h.hottest];
    const share = h.total ? Math.round(100 * row.total / h.total) : 0;
    b.setAttribute('data-start-key', row.start_key);
    lead = ' \u2014 hot region ' + rangeText(row) + ' on ' + row.server + ': ' +
      share + '% of ' + h.metric + ' in the last ' + span + '. ';
  } else {
    b.removeAttribute('data-start-key');
    lead = v.level === 'even'
      ? ' \u2014 no hot region: load is spread over the servers. '
      : ' \u2014 one server is busier than the rest. ';
  }
  b.replaceChildren(word, document.createTextNode(lead + v.text + '.'));
}

/* The heatmap by key: the server's SVG, parsed as SVG and adopted. */
async function renderKeyHeat() {
  const r = await fetch(api(state.table, 'keyheat') + '?buckets=' +
    Math.min(state.buckets, 600) + '&metric=' + state.metric + '&rows=32',
    { cache: 'no-store' });
  const text = await r.text();
  if (!r.ok) throw new Error(text);
  const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
  const root = doc.documentElement;
  if (root.nodeName !== 'svg') throw new Error('bad key heatmap');
  $('keyheat').replaceChildren(document.importNode(root, true));
}

function renderServers(h) {
  const box = $('servers');
  const max = Math.max(1, ...h.servers.map((s) => s.total));
  let busiest = -1;
  h.servers.forEach((s, i) => {
    if (s.total > 0 && (busiest < 0 || s.total > h.servers[busiest].total)) busiest = i;
  });
  /* flagged only when it carries at least twice its fair share */
  if (busiest >= 0 && h.servers[busiest].total * h.servers.length < 2 * h.total) busiest = -1;
  box.replaceChildren(...h.servers.map((s, i) => {
    const div = el('div', { class: i === busiest ? 'server busiest' : 'server',
                            'data-server': s.name });
    const bar = el('div', { class: 'bar' });
    const fill = el('div', { class: 'fill' });
    fill.style.width = (100 * s.total / max).toFixed(1) + '%';
    bar.appendChild(fill);
    const share = h.total ? Math.round(100 * s.total / h.total) : 0;
    div.append(el('span', { class: 'name' }, s.name), bar,
      el('span', { class: 'value' }, fmtCount(s.total) + ' ' + metricUnit(h.metric) +
         ' (' + share + '%) \u00b7 ' + s.regions + (s.regions === 1 ? ' region' : ' regions')));
    return div;
  }));
}

/* ---- the region table -------------------------------------------------------- */

function keyCell(key) {
  const td = el('td', { class: key === '' ? 'key empty-key' : 'key' }, key);
  if (key === '') td.title = 'empty: the edge of the table';
  return td;
}

/* The row cache's hit rate of a region's gets, the counts on hover. */
function cacheCell(hits, misses) {
  const total = hits + misses;
  return el('td', { class: 'num cache', title: hits + ' hits, ' + misses + ' misses' },
    total ? Math.round((100 * hits) / total) + '%' : '\u2014');
}

function renderRegions(r, h) {
  const load = new Map(h.rows.map((row, i) => [row.start_key, { row, i }]));
  const tbody = document.querySelector('#regions tbody');
  tbody.replaceChildren(...r.regions.map((reg) => {
    const l = load.get(reg.start_key);
    const cls = [];
    if (l && l.row.hot) cls.push('hot');
    if (l && l.i === h.hottest) cls.push('hottest');
    const tr = el('tr', { class: cls.join(' '), 'data-start-key': reg.start_key });
    const name = el('td', { title: reg.name }, reg.encoded.slice(0, 10));
    if (l && l.row.hot) name.appendChild(el('span', { class: 'badge hot' }, 'HOT'));
    tr.append(name, keyCell(reg.start_key), keyCell(reg.end_key),
      el('td', {}, reg.server),
      el('td', { class: 'num' }, fmtCount(reg.read_request_count)),
      el('td', { class: 'num' }, fmtCount(reg.write_request_count)),
      el('td', { class: 'num' }, fmtBytes(reg.store_file_size)),
      el('td', { class: 'num' }, fmtBytes(reg.memstore_size)),
      cacheCell(reg.row_cache_hits, reg.row_cache_misses),
      el('td', { class: 'num' }, l ? fmtCount(l.row.total) : ''));
    return tr;
  }));
  const meta = state.tables.find((t) => t.name === state.table);
  $('table-meta').textContent = r.regions.length +
    (r.regions.length === 1 ? ' region on ' : ' regions on ') + r.servers +
    ' modelled servers' + (meta ? ' \u00b7 families: ' + meta.families.join(', ') : '');
}

/* ---- the refresh loop -------------------------------------------------------- */

function setStatus(text, error) {
  const s = $('status');
  s.textContent = text;
  s.className = error ? 'error' : '';
}

async function refresh() {
  if (state.ticks % TABLES_EVERY === 0 || !state.tables.length) {
    const [list, server] = await Promise.all([
      getJSON('/ui/api/tables'), getJSON('/ui/api/server')]);
    renderTables(list);
    renderServer(server);
  }
  if (!state.table || !state.tables.some((t) => t.name === state.table)) {
    state.table = tableFromHash() || (state.tables[0] && state.tables[0].name) || null;
    renderTables({ tables: state.tables });
  }
  $('table-view').hidden = !state.table;
  if (!state.table) return;
  const [h, r] = await Promise.all([
    getJSON(api(state.table, 'heatmap') + '?buckets=' + state.buckets + '&metric=' + state.metric),
    getJSON(api(state.table, 'regions')),
  ]);
  $('table-name').textContent = state.table;
  document.body.setAttribute('data-table', state.table);
  renderBanner(h);
  try {
    await renderKeyHeat();
  } catch (e) { /* the rest of the page still refreshes */
    $('keyheat').textContent = 'heatmap by key unavailable: ' + e.message;
  }
  renderHeatmap(h);
  renderServers(h);
  renderRegions(r, h);
}

let timer = null;
let running = false;

/* One refresh at a time; the next is scheduled when this one is done. */
async function tick() {
  clearTimeout(timer);
  if (running) return;
  running = true;
  if (!state.paused) {
    try {
      await refresh();
      setStatus('live \u00b7 updated ' + fmtTime(Date.now()), false);
    } catch (e) {
      setStatus('cannot reach the server: ' + e.message, true);
    }
    state.ticks++;
    document.body.setAttribute('data-refreshes', String(state.ticks));
  }
  running = false;
  timer = setTimeout(tick, REFRESH_MS);
}

window.addEventListener('hashchange', () => {
  state.table = tableFromHash();
  state.ticks = 0; /* reload the table list too */
  tick();
});
$('metric').addEventListener('change', (e) => { state.metric = e.target.value; });
$('window').addEventListener('change', (e) => { state.buckets = Number(e.target.value); });
$('pause').addEventListener('change', (e) => { state.paused = e.target.checked; });

state.table = tableFromHash();
tick();
