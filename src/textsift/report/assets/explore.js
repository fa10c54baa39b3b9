// textsift explore: the glue between the embedded data, the HTML controls and table, and
// the Bokeh figures (whose sources it fills). Written by hand; everything else is Bokeh.
(function () {
  "use strict";
  const $ = (id) => document.getElementById(id);
  const el = (tag, text, cls) => {
    const e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  };
  const num = (x) => (x === "inf" ? Infinity : x === "-inf" ? -Infinity : x);
  const fmt = (x) => {
    if (x === null || x === undefined || Number.isNaN(x)) return "";
    if (!Number.isFinite(x)) return x > 0 ? "\u221e" : "\u2212\u221e";
    const a = Math.abs(x);
    if (a !== 0 && (a >= 1e5 || a < 1e-3)) return x.toExponential(2);
    return String(Number(x.toPrecision(4)));
  };
  const pct = (x) => (100 * x).toFixed(x < 0.01 ? 2 : 1) + "%";

  async function inflate(b64) {
    const bin = atob(b64.trim());
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return JSON.parse(await new Response(stream).text());
  }

  let D, M, df, N;
  const S = { method: 0, cls: 0, policy: "class", dir: "over", k: 50, picked: null, sort: null,
    qmax: null };
  const posCache = new Map();
  const pointCache = new Map();
  // many labels: each label's counts (term id -> documents), from the shards loaded so far
  const A = new Map(), termIndex = new Map(), shardWaits = new Map();

  function countIn(id, c) {
    if (D.many) { const m = A.get(c); return (m && m.get(id)) || 0; }
    const p = D.counts.ptr;
    for (let j = p[id]; j < p[id + 1]; j++) if (D.counts.cls[j] === c) return D.counts.n[j];
    return 0;
  }

  // ----------------------------------------------------------------- many labels: shards
  // A shard (a script beside the page) calls shard(number, payload): its labels' own
  // rankings and counts, its terms named; they join the page's terms.
  function merge(P) {
    const ids = P.terms.map((t, i) => {
      let id = termIndex.get(t);
      if (id === undefined) {
        id = D.terms.length;
        D.terms.push(t); df.push(P.df[i]); termIndex.set(t, id);
      }
      return id;
    });
    for (const [name, lists] of Object.entries(P.views)) {
      const v = D.views[name];
      for (const key of ["c", "cu"]) {
        v[key] = v[key] || {};
        lists[key].forEach((l, i) => { if (l) v[key][P.first + i] = [l[0].map((x) => ids[x]), l[1]]; });
      }
      v.cd = v.cd || {};
      lists.cd.forEach((d, i) => { if (d !== null) v.cd[P.first + i] = d; });
    }
    // the evidence of the shard's labels: p and q aligned with their lists, the log ratios
    const E = P.evidence;
    if (E) {
      for (const [name, lists] of Object.entries(E.methods))
        for (const key of ["c", "cu"])
          lists[key].forEach((e, i) => { if (e) D.evidence.methods[name][key][P.first + i] = e; });
      E.lr.forEach((l, i) => { if (l) D.evidence.lr[P.first + i] = [l[0].map((x) => ids[x]), l[1], l[2], l[3]]; });
    }
    P.a.forEach(([t, n], i) => {
      const m = new Map();
      t.forEach((x, q) => m.set(ids[x], n[q]));
      A.set(P.first + i, m);
    });
    pointCache.clear();
  }
  async function shard(number, b64) {
    const wait = shardWaits.get(number);
    try { merge(await inflate(b64)); wait && wait.resolve(); } catch (e) { wait && wait.reject(e); }
  }
  function ensureShard(c) {
    const number = Math.floor(c / D.many.shard);
    if (!shardWaits.has(number)) {
      let resolve, reject;
      const promise = new Promise((res, rej) => { resolve = res; reject = rej; });
      shardWaits.set(number, { promise, resolve, reject });
      const tag = el("script");
      tag.src = D.many.folder + "/shard-" + number + ".js";
      tag.onerror = () => reject(new Error("cannot load " + tag.src + ": keep the folder " +
        D.many.folder + " beside the page"));
      document.head.appendChild(tag);
    }
    return shardWaits.get(number).promise;
  }
  async function choose(c) {
    S.cls = c; S.sort = null;
    if (D.many) {
      $("summary-label").textContent = "loading " + D.classes[c] + "\u2026";
      await ensureShard(c);
      $("summary-label").textContent = "";
    }
    render();
  }

  // The ranking a method gives in the current view: the class's column, or a policy (its
  // default when it has no such column or policy).
  function viewOf(mi) {
    const m = D.methods[mi];
    const v = D.views[m.name];
    if (S.policy === "class" && v.c) {
      const key = m.name + "|c" + S.cls + S.dir;
      const ev = D.evidence && D.evidence.methods[m.name];  // [p, q] of each list's first terms
      if (S.dir === "over" || S.dir === "under") {
        const x = (S.dir === "over" ? v.c : v.cu)[S.cls];
        const e = ev && (S.dir === "over" ? ev.c : ev.cu)[S.cls];
        return x ? { ids: x[0], sc: x[1], key, how: "class", pq: ev ? e : undefined } : null;
      }
      return both(v.c[S.cls], v.cu[S.cls], v.cd[S.cls], key, ev && [ev.c[S.cls], ev.cu[S.cls]]);
    }
    const p = v.p[S.policy] ? S.policy : v.p[m.default] ? m.default : Object.keys(v.p)[0];
    return { ids: v.p[p][0], sc: v.p[p][1], key: m.name + "|" + p, how: p };
  }
  // Both directions of a class: its over- and under-represented lists interleaved as its
  // two-sided ranking orders them ("+" takes the next over-represented term, "-" the next
  // under-represented one); each term marked +1 or -1. ``evs``: the [p, q] of each list's
  // first terms (a method with p-values), interleaved alike.
  function both(over, under, order, key, evs) {
    if (!over || !under || order == null) return null;
    const ids = [], sc = [], dir = [], p = [], q = [];
    let i = 0, j = 0;
    for (const d of order) {
      const list = d === "+" ? over : under, at = d === "+" ? i++ : j++;
      if (at >= list[0].length) break;
      ids.push(list[0][at]); sc.push(list[1][at]); dir.push(d === "+" ? 1 : -1);
      const e = evs && evs[d === "+" ? 0 : 1];
      if (e) { p.push(e[0][at] ?? null); q.push(e[1][at] ?? null); }
    }
    return { ids, sc, dir, key, how: "class", pq: evs ? [p, q] : undefined };
  }
  function positions(view) {
    let pos = posCache.get(view.key);
    if (!pos) {
      pos = new Map();
      view.ids.forEach((id, r) => pos.set(id, r));
      posCache.set(view.key, pos);
    }
    return pos;
  }
  function positionIn(mi, id) {
    const view = viewOf(mi);
    if (!view) return null;
    const r = positions(view).get(id);
    return r === undefined ? null : { position: r + 1, score: num(view.sc[r]) };
  }
  function howText(view) {
    if (!view) return "no ranking for this class";
    return view.how === "class" ? "class " + D.classes[S.cls] + " vs the rest" +
      { over: ", over-represented terms", under: ", under-represented terms", both: "" }[S.dir]
      : "all classes, " + view.how + " policy";
  }

  // ----------------------------------------------------------------- controls
  function option(select, value, text) {
    const o = el("option", text);
    o.value = value;
    select.appendChild(o);
  }
  function setupControls() {
    D.methods.forEach((m, i) => option($("method"), m.name,
      m.label + (D.ratings ? " (" + m.kind + ")" : "")));
    if (D.many) searchBox();
    else D.classes.forEach((c, i) => option($("class"), String(i),
      String(c) + " (" + D.class_sizes[i] + " docs)"));
    $("class-label").firstChild.textContent = D.ratings ? "rank " : "class ";
    option($("policy"), "class", "this " + (D.ratings ? "rank" : "class") + " vs the rest");
    const policies = [...new Set(D.methods.flatMap((m) => m.policies))];
    for (const p of ["max", "sum", "wavg", "rr"].filter((p) => policies.includes(p)))
      option($("policy"), p, "all classes: " + p + (p === "rr" ? " (round robin)" : ""));
    const k = $("k");
    k.max = D.cap;
    k.value = S.k = D.k;
    S.method = Math.max(0, D.methods.findIndex((m) => m.name === D.method));
    $("method").value = D.methods[S.method].name;
    $("method").addEventListener("change", () => {
      S.method = D.methods.findIndex((m) => m.name === $("method").value);
      S.sort = null;
      render();
    });
    if (!D.many) $("class").addEventListener("change", () => choose(+$("class").value));
    $("policy").addEventListener("change", () => { S.policy = $("policy").value; S.sort = null; render(); });
    $("direction").addEventListener("change", () => { S.dir = $("direction").value; S.sort = null; render(); });
    // q < x (q <= x for bh and by, as `textsift score --alpha`): the terms whose q passes
    // (empty: the top k); --alpha fills it at first
    const E = D.evidence;
    if (E) {
      $("qrule").textContent = "q " + (E.rule === "<=" ? "\u2264" : "<");
      $("qmax-label").title = "Show only the terms whose q (the p-value adjusted by " +
        E.correction_name + " " + FAMILIES[E.family] + ") is " +
        (E.rule === "<=" ? "at most" : "below") + " this; empty: the top k terms";
      if (E.alpha !== null) $("qmax").value = S.qmax = E.alpha;
    }
    $("qmax").addEventListener("input", () => {
      const v = $("qmax").value.trim(), x = v === "" ? NaN : Number(v);
      S.qmax = Number.isFinite(x) ? x : null;
      renderTable(viewOf(S.method));
    });
    k.addEventListener("change", () => {
      S.k = Math.max(1, Math.min(D.cap, Math.round(+k.value) || D.k));
      k.value = S.k;
      render();
    });
  }

  // many labels: a search box (the browser's suggestions among the names) instead of a list
  function searchBox() {
    const box = el("input");
    box.id = "class"; box.type = "search"; box.setAttribute("list", "class-names");
    box.placeholder = "search " + D.classes.length + " labels";
    box.value = String(D.classes[S.cls]);
    const names = el("datalist");
    names.id = "class-names";
    const index = new Map();
    D.classes.forEach((c, i) => {
      index.set(String(c), i);
      const o = el("option");
      o.value = String(c);
      o.label = D.class_sizes[i] + " docs";
      names.appendChild(o);
    });
    $("class").replaceWith(box);
    box.after(names);
    const note = el("span", "", "muted");
    note.id = "summary-label";
    names.after(note);
    box.addEventListener("change", () => {
      const c = index.get(box.value.trim());
      if (c === undefined) { note.textContent = "no label named " + box.value; return; }
      choose(c).catch((e) => { note.textContent = "error: " + e.message; });
    });
  }

  // ----------------------------------------------------------------- table
  // The evidence of a class's terms (a method with p-values, in a class's own ranking):
  // their p, q and log ratio with its interval, as `textsift score --evidence` gives them.
  const hasEvidence = (view) => !!(view && view.how === "class" && view.pq);
  const lrCache = new Map();
  function logRatio(id, c) {
    let m = lrCache.get(c);
    if (!m) {
      m = new Map();
      const l = D.evidence && D.evidence.lr[c];
      if (l) l[0].forEach((t, i) => m.set(t, [num(l[1][i]), num(l[2][i]), num(l[3][i])]));
      lrCache.set(c, m);
    }
    return m.get(id) || null;
  }
  const interval = (e) => (e && e[0] !== null ? fmt(e[0]) + " [" + fmt(e[1]) + ", " + fmt(e[2]) + "]" : "");
  // the table's columns: [head, ascending first when sorted, how a value is written]
  function columns(ev) {
    const plain = (v) => (v === null ? "" : String(v));
    const cols = [["position", true, plain], ["term", true, plain], ["score", false, fmt],
      ["class docs", false, plain], ["rest docs", false, plain]];
    if (ev) cols.push(["p", true, fmt], ["q", true, fmt],
      ["log2 ratio [" + Math.round(100 * D.evidence.level) + "%]", false, (e) => interval(e)]);
    D.methods.forEach((m, j) => { if (j !== S.method) cols.push([m.name, true, plain]); });
    return cols;
  }
  // whether q passes the filter, by the rule of the correction (a term without q does not)
  const passes = (q) => q !== null && (D.evidence.rule === "<=" ? q <= S.qmax : q < S.qmax);
  const filtering = (ev) => ev && S.qmax !== null;
  // how many of a view's first terms have a q (the embedded evidence's depth)
  const depth = (view) => view.pq[1].filter((q) => q !== null).length;
  // The table's rows: the top k terms; filtering by q, every term with a q that passes
  // (the selection of `textsift score --alpha`, instead of k).
  function tableRows(view, ev) {
    if (!view) return [];
    const c = S.cls;
    const rows = view.ids.slice(0, filtering(ev) ? view.pq[1].length : S.k).map((id, r) => {
      const a = countIn(id, c);
      const term = view.dir ? D.terms[id] + (view.dir[r] > 0 ? " +" : " \u2212") : D.terms[id];
      const cells = [r + 1, term, num(view.sc[r]), a, df[id] - a];
      if (ev) cells.push(view.pq[0][r] ?? null, view.pq[1][r] ?? null, logRatio(id, c));
      D.methods.forEach((m, j) => { if (j !== S.method) cells.push((positionIn(j, id) || {}).position ?? null); });
      return { id, cells };
    });
    return filtering(ev) ? rows.filter((row) => passes(row.cells[6])) : rows;
  }
  const sortKey = (v) => (Array.isArray(v) ? v[0] : v);  // a log ratio sorts by its estimate
  function renderTable(view) {
    const ev = hasEvidence(view), cols = columns(ev);
    const thead = $("ranked").tHead;
    thead.textContent = "";
    const tr = thead.insertRow();
    cols.forEach(([h, asc], i) => {
      const th = el("th", h, i === 1 ? "term" : "");
      th.dataset.col = i;
      if (S.sort && S.sort.col === i) th.classList.add(S.sort.dir > 0 ? "sorted-asc" : "sorted-desc");
      th.addEventListener("click", () => {
        S.sort = { col: i, dir: S.sort && S.sort.col === i ? -S.sort.dir : asc ? 1 : -1 };
        renderTable(viewOf(S.method));
      });
      tr.appendChild(th);
    });
    let rows = tableRows(view, ev);
    if (S.sort && S.sort.col < cols.length) {
      const { col, dir } = S.sort;
      rows = rows.slice().sort((x, y) => {
        const a = sortKey(x.cells[col]), b = sortKey(y.cells[col]);
        if (a === null || b === null) return a === b ? 0 : a === null ? 1 : -1;  // blanks last
        return (a < b ? -1 : a > b ? 1 : 0) * dir || x.cells[0] - y.cells[0];
      });
    }
    const body = $("ranked").tBodies[0];
    body.textContent = "";
    const frag = document.createDocumentFragment();
    for (const row of rows) {
      const tr = el("tr");
      tr.dataset.term = D.terms[row.id];
      tr.dataset.id = row.id;
      if (row.id === S.picked) tr.classList.add("picked");
      row.cells.forEach((v, i) => tr.appendChild(el("td", cols[i][2](v), i === 1 ? "term" : "")));
      tr.addEventListener("click", () => pick(row.id));
      tr.addEventListener("mouseenter", () => showHover(row.id));
      frag.appendChild(tr);
    }
    body.appendChild(frag);
    const m = D.methods[S.method];
    $("table-title").textContent = (filtering(ev) ? rows.length + " terms with q " +
      (D.evidence.rule === "<=" ? "\u2264 " : "< ") + S.qmax : "Top " +
      Math.min(S.k, view ? view.ids.length : 0) + " terms") + ": " + m.label + ", " + howText(view);
    $("evidence-note").textContent = evidenceNote(view, ev);
  }
  function evidenceNote(view, ev) {
    const E = D.evidence, m = D.methods[S.method];
    if (!E) return D.many ? "" : "No method of this page has a p-value: no p, q or interval.";
    const tests = Object.keys(E.methods).join(", ");
    const rule = E.rule === "<=" ? "\u2264 " : "< ";
    const filter = S.qmax === null ? "" : " The q filter (q " + rule + S.qmax + ") does " +
      "not apply here: the table holds the top k (" + S.k + ") terms.";
    if (ev) return "p: the method's p-value; q: adjusted by " + E.correction_name +
      " " + FAMILIES[E.family] + "; log2 ratio: the class's share of documents containing " +
      "the term against the rest's, with its " + Math.round(100 * E.level) + "% interval (as " +
      "textsift score --evidence gives them; for the first " + depth(view) + " terms of " +
      "this list)" + (S.qmax === null ? "." : "; the table holds every term whose q is " +
      rule + S.qmax + (E.rule === "<=" ? " (" : " (strictly: ") + E.correction + "'s rule, " +
      "as textsift score --alpha selects), instead of the top k." + cut(view));
    if (E.untested[m.name]) return E.untested[m.name] + ": no p, q or interval. The methods " +
      "with p-values: " + tests + "." + filter;
    if (!E.methods[m.name]) return m.label + " has no p-value (it is not a statistical " +
      "test): no p, q or interval. The methods with p-values: " + tests + "." + filter;
    return "p, q and the interval are shown in a class's own ranking (vs the rest), not in a " +
      "ranking of all classes." + filter;
  }
  // Where the list of terms that pass may be cut: at --cap, or (filtering above --alpha,
  // or without it) where the embedded q ends, when the last term with a q passes.
  function cut(view) {
    const n = depth(view), last = n ? view.pq[1][view.pq[1].length - 1] : null;
    if (!n || !passes(last)) return "";
    const cap = D.many ? D.many.label_cap : D.cap;  // many labels: each label's own lists
    if (n === view.ids.length) return view.ids.length < cap ? "" : " The list is cut at " +
      cap + " terms (" + (D.many ? "each label's lists" : "--cap") + "), and its last term " +
      "passes: more terms may pass" + (D.many ? "." : " (explore --cap N embeds more).");
    if (D.evidence.alpha !== null && S.qmax <= D.evidence.alpha) return "";  // all embedded
    return " The list is cut at the " + n + " terms whose q is embedded, and the last of " +
      "them passes: terms further down may pass too (explore --alpha " + S.qmax + " embeds " +
      "q down to the last that passes).";
  }
  const FAMILIES = { class: "over the class's terms", all: "over every term of every class" };

  // ----------------------------------------------------------------- agreement heat map
  // Cell colours: ColorBrewer's Blues (0 light, 1 dark), interpolated; each cell's text is
  // black or white, whichever contrasts more with it (WCAG 2 relative luminance): at least
  // 4.58:1 on any colour, above the 4.5:1 that WCAG asks of small text.
  const BLUES = ["#f7fbff", "#deebf7", "#c6dbef", "#9ecae1", "#6baed6", "#4292c6", "#2171b5",
    "#08519c", "#08306b"];
  const rgb = (hex) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
  function blue(v) {
    const t = Math.min(Math.max(v, 0), 1) * (BLUES.length - 1), i = Math.min(Math.floor(t), BLUES.length - 2);
    const a = rgb(BLUES[i]), b = rgb(BLUES[i + 1]);
    return "#" + a.map((c, k) => Math.round(c + (b[k] - c) * (t - i)).toString(16).padStart(2, "0")).join("");
  }
  function luminance(hex) {
    const [r, g, b] = rgb(hex).map((c) => {
      const u = c / 255;
      return u <= 0.04045 ? u / 12.92 : ((u + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  }
  // white's contrast is 1.05 / (L + 0.05), black's (L + 0.05) / 0.05
  const inkOn = (hex) => { const L = luminance(hex); return (L + 0.05) ** 2 > 0.0525 ? "#000000" : "#ffffff"; };

  function renderAgree() {
    const sets = D.methods.map((m, i) => {
      const v = viewOf(i);
      return new Set(v ? v.ids.slice(0, S.k) : []);
    });
    const x = [], y = [], v = [], txt = [];
    D.methods.forEach((mi, i) => D.methods.forEach((mj, j) => {
      let inter = 0;
      for (const t of sets[i]) if (sets[j].has(t)) inter++;
      const union = sets[i].size + sets[j].size - inter;
      const jac = union ? inter / union : NaN;
      x.push(mi.name); y.push(mj.name); v.push(jac);
      txt.push(Number.isNaN(jac) ? "" : jac.toFixed(2).replace(/^0/, "").replace(/^1\.00$/, "1"));
    }));
    const fill = v.map((j) => (Number.isNaN(j) ? "#eeeeee" : blue(j)));
    M.agree.data = { x, y, v, txt, fill, ink: fill.map(inkOn) };
    $("agree-title").textContent = "Method agreement (top " + S.k + ", " +
      (S.policy === "class" ? "class " + D.classes[S.cls] : S.policy + " policy") + ")";
  }

  // ----------------------------------------------------------------- term map
  function pointsOf(c, view) {
    let ids = pointCache.get(c);
    if (!ids) {
      const set = new Set();
      D.methods.forEach((m) => {
        const v = D.views[m.name];
        const lists = v.c ? (v.c[c] ? [v.c[c]] : []) : Object.values(v.p);
        for (const l of lists) for (const id of l[0]) set.add(id);
      });
      ids = set;
      pointCache.set(c, ids);
    }
    if (!view || view.how === "class") return ids;
    const all = new Set(ids);
    for (const id of view.ids) all.add(id);
    return all;
  }
  function xy(id, c) {
    const nc = D.class_sizes[c], rest = N - nc, a = countIn(id, c), b = df[id] - a;
    // a count of 0 is drawn at half a document, below every term that occurs
    return [Math.max(b, 0.5) / rest, Math.max(a, 0.5) / nc, a, b];
  }
  function renderMap(view) {
    const c = S.cls;
    const pos = view ? positions(view) : new Map();
    const ids = [...pointsOf(c, view)];
    const cols = { x: [], y: [], s: [], id: [], term: [], a: [], b: [] };
    let lo = Infinity, hi = -Infinity;
    if (view) for (const s of view.sc) { const v = num(s); if (Number.isFinite(v)) { lo = Math.min(lo, v); hi = Math.max(hi, v); } }
    if (!(hi > lo)) { hi = (Number.isFinite(lo) ? lo : 0) + 1; lo = hi - 1; }
    for (const id of ids) {
      const [x, y, a, b] = xy(id, c);
      const r = pos.get(id);
      let s = r === undefined ? NaN : num(view.sc[r]);
      if (s === Infinity) s = hi; else if (s === -Infinity) s = lo;
      cols.x.push(x); cols.y.push(y); cols.s.push(s); cols.id.push(id);
      cols.term.push(D.terms[id]); cols.a.push(a); cols.b.push(b);
    }
    const lowest = (n) => 0.5 / n / 1.5;  // below the half-document floor
    M.x.setv({ start: lowest(N - D.class_sizes[c]), end: 1.5 });
    M.y.setv({ start: lowest(D.class_sizes[c]), end: 1.5 });
    M.colors.low = lo;
    M.colors.high = hi;
    M.points.data = cols;
    S.labelled = view ? view.ids.slice(0, Math.min(D.top, S.k)) : [];
    relabel();
    $("map-title").textContent = "Term map: " + (D.ratings ? "rank " : "class ") + D.classes[c]
      + " vs the rest, coloured by " + D.methods[S.method].label + " (" + howText(view) + ")";
  }

  // ----------------------------------------------------------------- map labels
  // Written by hand (Bokeh does not place labels): a greedy pass in screen pixels over the
  // terms to label, best first. Terms with the same counts share a dot and one label ("best
  // +3"). Each label takes the first of a few spots around its dot where its box (the
  // text's measured extent) stays in the frame and meets neither a label already placed nor
  // the dot of a term already labelled -- preferring a spot that covers no dot still to be
  // labelled; a term with no free spot is left unlabelled (the hover still names it). Run
  // again whenever the view is panned or zoomed.
  const SPOTS = [  // [dx, dy (up), align, baseline] around the dot
    [6, 0, "left", "middle"], [-6, 0, "right", "middle"], [4, 5, "left", "bottom"],
    [4, -5, "left", "top"], [-4, 5, "right", "bottom"], [-4, -5, "right", "top"],
    [0, 7, "center", "bottom"], [0, -7, "center", "top"]];
  const PAD = 2;  // px kept free around a label's box; a dot is 6 px wide
  let measure = null, fontPx = 0;
  function textBox(text) {  // [width, height] in px, in the label set's own font
    if (!measure) {
      const prop = (v) => (v !== null && typeof v === "object" ? v.value : v);  // a Value or a plain one
      const set = M.labelSet;
      measure = document.createElement("canvas").getContext("2d");
      measure.font = [set.text_font_style, set.text_font_size, set.text_font].map(prop).join(" ");
      fontPx = parseFloat(prop(set.text_font_size));
    }
    const m = measure.measureText(text), h = m.fontBoundingBoxAscent + m.fontBoundingBoxDescent;
    return [m.width, Number.isFinite(h) ? h : 1.25 * fontPx];
  }
  function screen(x, y) {
    const W = M.fig.inner_width, H = M.fig.inner_height, L = Math.log;
    return [W * (L(x) - L(M.x.start)) / (L(M.x.end) - L(M.x.start)),
      H * (1 - (L(y) - L(M.y.start)) / (L(M.y.end) - L(M.y.start)))];
  }
  const meets = (p, q) => p[0] < q[2] && q[0] < p[2] && p[1] < q[3] && q[1] < p[3];
  function placeLabels(ids, c) {
    const W = M.fig.inner_width, H = M.fig.inner_height;
    const dots = new Map();  // one per position, in the order of its best term
    for (const id of ids) {
      const [x, y] = xy(id, c), key = x + " " + y;
      if (dots.has(key)) dots.get(key).n++; else dots.set(key, { id, x, y, n: 1 });
    }
    const at = [...dots.values()].map((d) => {
      const [sx, sy] = screen(d.x, d.y);
      return { ...d, sx, sy, dot: [sx - 3, sy - 3, sx + 3, sy + 3] };
    });
    const placed = [];  // the boxes of the labels placed and of their dots
    const lab = { x: [], y: [], text: [], dx: [], dy: [], align: [], base: [] };
    at.forEach(({ id, x, y, n, sx, sy, dot }, i) => {
      const text = D.terms[id] + (n > 1 ? " +" + (n - 1) : ""), [w, h] = textBox(text);
      const boxes = SPOTS.map(([dx, dy, align, base]) => {
        const left = sx + dx - (align === "left" ? 0 : align === "right" ? w : w / 2);
        const top = sy - dy - (base === "top" ? 0 : base === "bottom" ? h : h / 2);
        return [left - PAD, top - PAD, left + w + PAD, top + h + PAD];
      });
      const free = (box) => box[0] >= 0 && box[1] >= 0 && box[2] <= W && box[3] <= H &&
        !placed.some((b) => meets(b, box));
      const later = at.slice(i + 1).map((d) => d.dot);
      let k = boxes.findIndex((box) => free(box) && !later.some((d) => meets(d, box)));
      if (k < 0) k = boxes.findIndex(free);
      if (k < 0) return;
      placed.push(boxes[k], dot);
      const [dx, dy, align, base] = SPOTS[k];
      lab.x.push(x); lab.y.push(y); lab.text.push(text);
      lab.dx.push(dx); lab.dy.push(dy); lab.align.push(align); lab.base.push(base);
    });
    return lab;
  }
  function relabel() {
    if (M && S.labelled) M.labels.data = placeLabels(S.labelled, S.cls);
  }

  // ----------------------------------------------------------------- hover, pick, context
  function countsLine(id) {
    const c = S.cls, nc = D.class_sizes[c], a = countIn(id, c), b = df[id] - a;
    return "in " + a + " of " + nc + " documents of " + D.classes[c] + " (" + pct(a / nc) +
      "), " + b + " of " + (N - nc) + " others (" + pct(b / (N - nc)) + "); df " + df[id];
  }
  function showHover(id) {
    $("hover-term").textContent = D.terms[id];
    const box = $("hover");
    box.textContent = "";
    box.appendChild(el("p", countsLine(id)));
    const t = el("table");
    const h = t.createTHead().insertRow();
    for (const x of ["method", "score", "position"]) h.appendChild(el("th", x));
    const body = t.createTBody();
    D.methods.forEach((m, j) => {
      const r = positionIn(j, id);
      const tr = body.insertRow();
      if (j === S.method) tr.className = "current";
      tr.appendChild(el("td", m.name));
      tr.appendChild(el("td", r ? fmt(r.score) : ""));
      tr.appendChild(el("td", r ? String(r.position) : "> " + D.cap));
    });
    box.appendChild(t);
    box.appendChild(el("p", "Positions and scores in the ranking chosen above (" + howText(viewOf(S.method)) +
      "); \u201c> " + D.cap + "\u201d: beyond the embedded top " + D.cap + ".", "muted"));
  }
  function hover(cb_data) {
    const idx = cb_data && cb_data.index && cb_data.index.indices;
    if (idx && idx.length) showHover(M.points.data.id[idx[0]]);
  }
  function tap(selected) {
    const idx = selected.indices;
    if (idx && idx.length) pick(M.points.data.id[idx[0]]);
  }

  function snippetList(items, withClass) {
    const ol = el("ol");
    for (const [c, [left, hit, right]] of items) {
      const li = el("li", null, "snippet");
      li.appendChild(document.createTextNode("\u2026" + left));
      li.appendChild(el("mark", hit));
      li.appendChild(document.createTextNode(right + "\u2026"));
      if (withClass) li.appendChild(el("span", " [" + D.classes[c] + "]", "muted"));
      ol.appendChild(li);
    }
    return ol;
  }
  // A term's evidence and dispersion in class c, where the page embeds them (a class's first
  // terms): A-D, p and q by the method shown, the log ratio, and range, DP, DPnorm and CV in
  // the class's documents and in the rest, as `textsift score --evidence` gives them.
  const dispCache = new Map();
  function dispersionOf(id, c) {
    let m = dispCache.get(c);
    if (!m) {
      m = new Map();
      const d = D.evidence && D.evidence.disp && D.evidence.disp[c];
      if (d) d[0].forEach((t, i) => m.set(t, d.slice(1).map((x) => x[i])));
      dispCache.set(c, m);
    }
    return m.get(id) || null;
  }
  function evidenceBlock(id, c) {
    const d = dispersionOf(id, c), lr = logRatio(id, c);
    if (!d && !lr) return null;
    const box = el("div", null, "evidence");
    const a = countIn(id, c), nc = D.class_sizes[c], b = df[id] - a;
    // A, B: the documents with the term in the class and in the rest; C, D: those without
    const cells = [["A", a], ["B", b], ["C", nc - a], ["D", N - nc - b]];
    const view = viewOf(S.method);
    const r = hasEvidence(view) ? view.ids.indexOf(id) : -1;
    if (r >= 0 && view.pq[1][r] !== null && view.pq[1][r] !== undefined)
      cells.push(["p (" + D.methods[S.method].name + ")", fmt(view.pq[0][r])], ["q", fmt(view.pq[1][r])]);
    if (lr) cells.push(["log2 ratio [" + Math.round(100 * D.evidence.level) + "%]", interval(lr)]);
    const dl = el("dl", null, "stats");
    for (const [k, v] of cells) {
      const x = el("div");
      x.appendChild(el("dt", k)); x.appendChild(el("dd", String(v)));
      dl.appendChild(x);
    }
    box.appendChild(dl);
    if (d) {
      const t = el("table", null, "dispersion");
      const h = t.createTHead().insertRow();
      for (const x of ["", "documents with it (range)", "DP", "DPnorm", "CV"]) h.appendChild(el("th", x));
      const body = t.createTBody();
      [[D.classes[c], 0], ["the rest", 1]].forEach(([name, g]) => {
        const tr = body.insertRow();
        tr.appendChild(el("td", String(name)));
        tr.appendChild(el("td", d[g] === null ? "" : String(d[g])));
        for (const k of [2, 4, 6]) tr.appendChild(el("td", fmt(num(d[k + g]))));
      });
      box.appendChild(t);
      box.appendChild(el("p", "DP (Gries): 0 when the term is spread over the documents in " +
        "proportion to their sizes, near 1 when a few hold it; DPnorm: DP over its largest " +
        "value; CV: the coefficient of variation of its relative frequency over the documents.", "muted"));
    }
    return box;
  }
  function renderTerm(id) {
    const c = S.cls;
    $("picked").textContent = D.terms[id];
    const stats = $("term-stats");
    stats.textContent = "";
    stats.appendChild(el("p", countsLine(id)));
    const ev = D.many ? null : evidenceBlock(id, c);
    if (ev) stats.appendChild(ev);
    if (D.rank_stats) {
      const R = D.rank_stats, dl = el("dl", null, "stats");
      for (const [k, v] of [["mean rank", fmt(R.mean[id])], ["rank variance (Var)", fmt(R.var[id])],
        ["IDF = ln(N/df)", fmt(R.idf[id])], ["NC at R", fmt(R.nc[id])], ["R (best rank)", String(R.nc_rank[id])]]) {
        const d = el("div");
        d.appendChild(el("dt", k)); d.appendChild(el("dd", v));
        dl.appendChild(d);
      }
      stats.appendChild(dl);
    }
    if (D.many) {  // the chosen label and the rest
      const nc = D.class_sizes[c], a = countIn(id, c), n = [a, df[id] - a], size = [nc, N - nc];
      M.bars.data = { x: ["this label", "the rest"], n, size, share: n.map((v, j) => v / Math.max(size[j], 1)) };
    } else {
      const n = D.classes.map((_, j) => countIn(id, j)), size = D.class_sizes;
      M.bars.data = { x: D.classes.map(String), n, size, share: n.map((v, j) => v / Math.max(size[j], 1)) };
    }
    M.rate.location = df[id] / N;
    const box = $("snippets");
    box.textContent = "";
    const found = D.snippets[String(id)] || [];
    const own = [], rest = [];
    for (const [j, list] of found) if (j === c) for (const s of list.slice(0, 10)) own.push([j, s]);
    // the rest: documents without class c (a document of several labels says which it has)
    const seen = new Set();
    const others = found.filter(([j]) => j !== c).map(([j, list]) => list
      .filter((s) => !(s[3] && s[3].includes(c)) && !seen.has(s.slice(0, 3).join("\u0000"))
        && seen.add(s.slice(0, 3).join("\u0000")))
      .map((s) => [j, s]));
    for (let i = 0; rest.length < 10 && others.some((l) => i < l.length); i++)
      for (const l of others) if (i < l.length && rest.length < 10) rest.push(l[i]);
    const a = countIn(id, c), b = df[id] - a;
    const left = el("div"), right = el("div");
    left.appendChild(el("h3", D.classes[c] + ": " + own.length + " of " + a + " documents"));
    right.appendChild(el("h3", "the rest: " + rest.length + " of " + b + " documents"));
    left.appendChild(snippetList(own, false));
    right.appendChild(snippetList(rest, true));
    box.appendChild(left); box.appendChild(right);
    if (!found.length && df[id] > 0)
      box.appendChild(el("p", D.many ? "No snippets with many labels." :
        "No snippets embedded for this term: they are kept for the top " + D.snippet_top +
        " terms of each method and view.", "muted"));
  }
  function pick(id) {
    S.picked = id;
    for (const tr of $("ranked").tBodies[0].rows) tr.classList.toggle("picked", +tr.dataset.id === id);
    const [x, y] = xy(id, S.cls);
    M.pick.data = { x: [x], y: [y] };
    showHover(id);
    renderTerm(id);
  }

  function render() {
    const view = viewOf(S.method);
    const m = D.methods[S.method];
    $("method-summary").textContent = m.summary;
    renderTable(view);
    renderAgree();
    renderMap(view);
    if (S.picked !== null) pick(S.picked);
  }

  async function main() {
    const timing = window.textsift.timing;
    timing.start = performance.now();
    D = await inflate($("textsift-data").textContent);
    timing.data = performance.now();
    N = D.n_docs;
    // documents with the term (with label sets, not the sum over labels); many labels: the
    // shards add terms
    df = D.many ? D.df.slice() : Int32Array.from(D.df);
    D.terms.forEach((t, i) => termIndex.set(t, i));
    const items = JSON.parse($("textsift-items").textContent);
    await Promise.all(Object.entries(items).map(([name, item]) => Bokeh.embed.embed_item(item, "plot-" + name)));
    timing.plots = performance.now();
    const model = (name) => {
      for (const d of Bokeh.documents) { const x = d.get_model_by_name(name); if (x) return x; }
      throw new Error("no Bokeh model " + name);
    };
    M = { points: model("map_points"), colors: model("map_colors"), labels: model("map_labels"),
      pick: model("map_pick"), x: model("map_x"), y: model("map_y"), agree: model("agree_cells"), bars: model("term_bars"),
      fig: model("map"), labelSet: model("map_label_set"), rate: model("term_rate") };
    const what = D.ratings ? "rank" : "class";
    $("dist-title").textContent = "Share of each " + what + "'s documents that contain the term " +
      "(dashed: its share of all documents; hover for the counts)";
    $("corpus-title").textContent = "The corpus: share of its documents in each " + what;
    $("summary").textContent = N + " documents, " + D.classes.length + (D.ratings ? " ranks" : D.multilabel ? " labels" : " classes") +
      "; " + D.terms.length + " terms embedded (the top " + D.cap + " of each method and view)" +
      (D.many ? "; each label's own top " + D.many.label_cap + " terms load when it is chosen (" +
        D.many.folder + "/)." : ".");
    $("notes").textContent = "Made by textsift explore. Scores as `textsift score` computes them " +
      "(a class's ranking = --class; the policies = --aggregate). Embedded: the top " + D.cap +
      " terms of every method and view, snippets for the top " + D.snippet_top + " of each.";
    if (D.many) S.cls = D.class_sizes.reduce((b, n, j, x) => (n > x[b] ? j : b), 0);  // the largest
    setupControls();
    await choose(S.cls);
    window.textsift.ready = timing.ready = performance.now();
  }

  // ``ready``: when the page is drawn (ms since navigation); ``timing``: each stage's end
  window.textsift = { hover, tap, pick, relabel, shard, state: S, ready: null, timing: {} };
  main().catch((e) => { $("summary").textContent = "error: " + e; throw e; });
})();
