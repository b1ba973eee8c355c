"use strict";
// hallubench view: every piece of data is rendered with textContent (never innerHTML): it is untrusted text.
(function () {
  const D = JSON.parse(document.getElementById("data").textContent);
  const items = D.items;
  const PAGE = 100;
  const KEYS = ["task", "model", "run", "set", "date", "outcome", "group", "fail", "q"];
  const state = { task: "", model: "", run: "", set: "", date: "", outcome: "", group: "", fail: "", q: "", item: "" };
  // The "details" block: gzip in base64 of JSON lines, the evidence passages first, then one line per item. It is
  // unpacked once, after the table is drawn; an item's line is parsed when the item is opened.
  let lines = null;
  let evidence = null;
  async function unpack() {
    const packed = atob(document.getElementById("details").textContent.trim());
    const bytes = new Uint8Array(packed.length);
    for (let j = 0; j < packed.length; j++) bytes[j] = packed.charCodeAt(j);
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    lines = (await new Response(stream).text()).split("\n");
    evidence = JSON.parse(lines[0]);
    document.body.dataset.details = "ready";
  }
  let ready = null;
  const whenReady = (then) => { if (lines) then(); else ready.then(then); };
  const full = (i) => Object.assign({}, items[i], JSON.parse(lines[i + 1]));
  const passages = () => evidence;
  let shown = [];
  let page = 0;

  const $ = (id) => document.getElementById(id);
  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  const show = (v) => (v === null || v === undefined ? "–" : typeof v === "string" ? v : JSON.stringify(v));
  const num = (v) => (typeof v === "number" && !Number.isInteger(v) ? v.toFixed(3) : show(v));
  const groupsOf = (it) => Object.keys(it.g).map((k) => k + "=" + it.g[k]);
  const cut = (s, n) => (s.length > n ? s.slice(0, n) + "…" : s);
  const verdictClass = (l) => (l === true ? "true" : l === false ? "false" : "none");

  // items of the same task and document (doc hash or id): several models side by side
  const byKey = new Map();
  items.forEach((it, i) => {
    const key = it.t + "\u0000" + it.k;
    if (!byKey.has(key)) byKey.set(key, []);
    byKey.get(key).push(i);
  });

  function fillSelect(id, values) {
    const select = $(id);
    select.appendChild(el("option", null, "all")).value = "";
    values.forEach((v) => { select.appendChild(el("option", null, v)).value = v; });
  }
  const uniq = (f) => Array.from(new Set(items.flatMap(f))).sort();
  fillSelect("f-task", D.tasks.slice());
  fillSelect("f-model", D.models.slice());
  // runs: a samples log each (its path), with the test set and date its run recorded
  const runField = (f) => Array.from(new Set(D.runs.map((run) => run[f]))).sort();
  fillSelect("f-run", runField("p"));
  fillSelect("f-set", runField("s"));
  fillSelect("f-date", runField("w"));
  fillSelect("f-outcome", uniq((it) => [it.o]));
  fillSelect("f-group", uniq(groupsOf));

  let lowered = null;
  let needle = "";
  function matches(it, i) {
    if (state.task && D.tasks[it.t] !== state.task) return false;
    if (state.model && D.models[it.m] !== state.model) return false;
    const run = D.runs[it.u];
    if (state.run && run.p !== state.run) return false;
    if (state.set && run.s !== state.set) return false;
    if (state.date && run.w !== state.date) return false;
    if (state.outcome && it.o !== state.outcome) return false;
    if (state.group && !groupsOf(it).includes(state.group)) return false;
    if (state.fail === "1" && !it.f) return false;
    if (state.fail === "0" && it.f) return false;
    if (state.q) {
      if (!lowered) lowered = lines.slice(1).map((line) => line.toLowerCase());
      if (!lowered[i].includes(needle)) return false;
    }
    return true;
  }

  function renderRows() {
    const body = $("rows");
    const pages = Math.max(1, Math.ceil(shown.length / PAGE));
    page = Math.min(page, pages - 1);
    const frag = document.createDocumentFragment();
    for (const i of shown.slice(page * PAGE, (page + 1) * PAGE)) {
      const it = items[i];
      const tr = el("tr");
      tr.dataset.i = i;
      if (String(i) === state.item) tr.className = "sel";
      [D.tasks[it.t], D.models[it.m], it.d, it.o, groupsOf(it).join(", ")].forEach((v) => tr.appendChild(el("td", null, v)));
      const judge = tr.appendChild(el("td", it.f ? "fail" : null, it.f ? "✗ " + it.f : "ok"));
      if (it.f) judge.title = it.f + " judge steps failed or unreadable";
      tr.appendChild(el("td", null, cut(it.q, 150)));
      tr.appendChild(el("td", null, cut(it.r, 150)));
      frag.appendChild(tr);
    }
    body.replaceChildren(frag);
    $("count").textContent = shown.length + " of " + items.length + " items";
    $("page").textContent = "page " + (page + 1) + " of " + pages;
    $("prev").disabled = page === 0;
    $("next").disabled = page >= pages - 1;
  }

  function apply() {
    if (state.q && !lines) { $("count").textContent = "searching…"; whenReady(apply); return; }
    // the text filter searches each item's detail line, where text is JSON-escaped: escape the query alike
    needle = JSON.stringify(state.q.toLowerCase()).slice(1, -1)
      .replace(/</g, "\\u003c").replace(/>/g, "\\u003e").replace(/&/g, "\\u0026");
    shown = [];
    items.forEach((it, i) => { if (matches(it, i)) shown.push(i); });
    renderRows();
    renderDetail();
  }

  function writeHash() {
    const params = new URLSearchParams();
    Object.keys(state).forEach((k) => { if (state[k]) params.set(k, state[k]); });
    const hash = params.toString();
    history.replaceState(null, "", hash ? "#" + hash : location.pathname + location.search);
  }

  function readHash() {
    const params = new URLSearchParams(location.hash.slice(1));
    Object.keys(state).forEach((k) => { state[k] = params.get(k) || ""; });
    KEYS.forEach((k) => {
      const control = document.querySelector('[data-key="' + k + '"]');
      if (control.tagName === "SELECT" && state[k] && !Array.from(control.options).some((o) => o.value === state[k])) {
        control.appendChild(el("option", null, state[k] + " (none)")).value = state[k];
      }
      control.value = state[k];
    });
  }

  function responseWithClaims(it, focus) {
    const box = el("div", "text response");
    const spans = (it.cl || []).map((c, j) => ({ c, j })).filter((x) => x.c.sp).sort((a, b) => a.c.sp[0] - b.c.sp[0]);
    let at = 0;
    for (const { c, j } of spans) {
      const [start, end] = c.sp;
      if (start < at) continue; // overlapping claims: the first one is marked
      box.appendChild(document.createTextNode(it.r.slice(at, start)));
      const mark = el("mark", "c-" + verdictClass(c.l) + (j === focus ? " focus" : ""), it.r.slice(start, end));
      mark.dataset.claim = j;
      mark.title = "claim " + (j + 1) + ": " + show(c.l);
      box.appendChild(mark);
      at = end;
    }
    box.appendChild(document.createTextNode(it.r.slice(at)));
    return box;
  }

  // what a verdict's judge said: the rule judge's reason for its label; else the reply, and when the first reply
  // could not be read, that first reply beside the reply to the reminder turn
  function replies(v) {
    const box = el("div", "replies");
    if (v.w !== undefined) {
      box.appendChild(el("div", "why", "why (rule judge): " +
        (v.w || "no reason recorded (a verdict written before its check gave one)")));
      return box;
    }
    if (v.r1 === undefined) {
      box.appendChild(el("pre", "raw", show(v.r)));
      return box;
    }
    box.classList.add("pair");
    for (const [label, text] of [["first reply (unreadable)", v.r1], ["reply to the reminder", v.r]]) {
      const reply = box.appendChild(el("div", "reply"));
      reply.appendChild(el("div", "muted", label));
      reply.appendChild(el("pre", "raw", show(text)));
    }
    return box;
  }

  function stepsList(it) {
    const box = el("div", "steps");
    for (const s of it.st) {
      const step = el("div", "step");
      const head = el("div", "step-head");
      head.appendChild(el("b", null, s.n));
      head.appendChild(document.createTextNode(" read as "));
      head.appendChild(el("code", null, show(s.l)));
      head.appendChild(document.createTextNode(" · "));
      head.appendChild(el("span", s.s === "ok" ? "muted" : "fail", s.s));
      step.appendChild(head);
      step.appendChild(replies(s));
      if (s.x) step.appendChild(el("pre", "raw", JSON.stringify(s.x)));
      box.appendChild(step);
    }
    return box;
  }

  function claimList(it, column) {
    const box = el("div", "claims");
    it.cl.forEach((c, j) => {
      const details = el("details", "claim");
      const summary = el("summary");
      summary.appendChild(el("span", "badge v-" + verdictClass(c.l), c.s === "ok" ? show(c.l) : c.s));
      summary.appendChild(document.createTextNode(" " + c.c));
      details.appendChild(summary);
      details.appendChild(el("div", "muted", "judge:"));
      details.appendChild(replies(c));
      for (const e of c.e) {
        const p = passages()[e];
        const passage = el("div", "passage");
        passage.appendChild(el("div", "t", p.t + " · passage " + p.i));
        passage.appendChild(el("div", "text", p.x === null ? "(passage text not available here)" : p.x));
        details.appendChild(passage);
      }
      if (!c.e.length) details.appendChild(el("div", "muted", "no evidence passage"));
      details.addEventListener("toggle", () => {
        column.querySelectorAll("mark").forEach((m) => m.classList.toggle("focus", details.open && m.dataset.claim == j));
      });
      box.appendChild(details);
    });
    return box;
  }

  function column(i, current) {
    const it = full(i);
    const col = el("div", "col" + (current ? " current" : ""));
    col.dataset.i = i;
    col.appendChild(el("h3", null, D.models[it.m] + " · " + it.o + (it.f ? " · " + it.f + " judge failures" : "")));
    const run = D.runs[it.u];
    col.appendChild(el("div", "muted", "set " + run.s + " · " + run.w + " · " + run.p));
    col.appendChild(el("div", "metrics", Object.keys(it.mt).map((k) => k + " " + num(it.mt[k])).join(" · ")));
    if (it.why) col.appendChild(el("div", "fail", "not judged: " + it.why));
    col.appendChild(el("h4", null, "response"));
    col.appendChild(responseWithClaims(it, -1));
    if (it.cl) {
      const supported = it.cl.filter((c) => c.l === true).length;
      col.appendChild(el("h4", null, "claims (" + supported + " of " + it.cl.length + " supported; click for evidence)"));
      col.appendChild(claimList(it, col));
    }
    if (it.st.length) {
      const steps = el("details", "steps-box");
      steps.open = it.st.length <= 12;
      steps.appendChild(el("summary", null, "judge steps (" + it.st.length + ")"));
      steps.appendChild(stepsList(it));
      col.appendChild(steps);
    }
    return col;
  }

  function renderDetail() {
    const pane = $("detail");
    const i = Number(state.item);
    if (state.item === "" || !(i >= 0 && i < items.length)) { pane.hidden = true; pane.replaceChildren(); return; }
    if (!lines) { whenReady(renderDetail); return; }
    const it = full(i);
    const frag = document.createDocumentFragment();
    const close = el("button", null, "close");
    close.type = "button";
    close.addEventListener("click", () => { state.item = ""; writeHash(); apply(); });
    frag.appendChild(close);
    frag.appendChild(el("h2", null, D.tasks[it.t] + " · doc " + it.d));
    const groups = groupsOf(it);
    if (groups.length) frag.appendChild(el("div", "muted", groups.join(" · ")));
    frag.appendChild(el("h4", null, "prompt"));
    frag.appendChild(el("div", "text", it.q));
    for (const [label, value] of [["model input", it.in], ["target", it.tg], ["reference", it.ref]]) {
      if (!value) continue;
      const d = el("details");
      d.appendChild(el("summary", null, label));
      d.appendChild(el("div", "text", value));
      frag.appendChild(d);
    }
    const same = byKey.get(it.t + "\u0000" + it.k).slice().sort((a, b) => items[a].m - items[b].m);
    if (same.length > 1) frag.appendChild(el("h4", null, same.length + " answers to this item (models and runs)"));
    const cols = el("div", "cols");
    same.forEach((j) => cols.appendChild(column(j, j === i)));
    frag.appendChild(cols);
    pane.replaceChildren(frag);
    pane.hidden = false;
  }

  $("filters").addEventListener("input", (event) => {
    const key = event.target.dataset.key;
    if (!key) return;
    state[key] = event.target.value;
    page = 0;
    writeHash();
    apply();
  });
  $("filters").addEventListener("submit", (event) => event.preventDefault());
  $("f-clear").addEventListener("click", () => { history.replaceState(null, "", location.pathname); readHash(); apply(); });
  $("prev").addEventListener("click", () => { page -= 1; renderRows(); });
  $("next").addEventListener("click", () => { page += 1; renderRows(); });
  $("rows").addEventListener("click", (event) => {
    const tr = event.target.closest("tr");
    if (!tr) return;
    state.item = tr.dataset.i;
    writeHash();
    renderRows();
    renderDetail();
  });
  window.addEventListener("hashchange", () => { readHash(); apply(); });
  readHash();
  // unpack the details after the table is drawn (next frame); a text filter and an opened item wait for them
  ready = new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0))).then(unpack);
  const q = state.q;
  state.q = "";
  apply();
  state.q = q;
  ready.then(() => { if (state.q) apply(); }, (error) => {
    $("count").textContent += " (item details cannot be shown in this browser: " + error + ")";
  });
})();
