// The case explorer's script: sorting, filters, lazy rows and the detail view, from the embedded JSON.
// Every string from the report reaches the page through textContent (never innerHTML), so an answer
// is shown as the characters it is. The view's state lives in the URL fragment, so a view can be
// bookmarked or linked (#sort=confidence&dir=desc&wrong=1) and a headless browser can open it.
(() => {
  "use strict";
  const DATA = JSON.parse(document.getElementById("cairn-data").textContent);
  const CASES = DATA.cases;
  const BY_ID = new Map(CASES.map((c) => [c.id, c]));
  const PAGE = DATA.page_size || 100;
  const DIFF_PAGE = 10;
  const DASH = "—";
  const OUTCOME_RANK = { broke: 0, fixed: 1, changed: 2, flaky: 3, unchanged: 4 };
  const FLAGS = ["wrong", "abstained", "missed", "critical", "changed"];
  const DEFAULTS = { sort: "", dir: "asc", tag: "", q: "", page: 0, diff: "all" };
  const state = { ...DEFAULTS };
  FLAGS.forEach((f) => (state[f] = false));
  const open = new Set();
  let diffShown = DIFF_PAGE;

  // --- small helpers ---------------------------------------------------------------------------------
  const el = (tag, cls, text) => {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  };
  const add = (parent, ...children) => {
    children.forEach((c) => c && parent.appendChild(c));
    return parent;
  };
  const isNum = (v) => typeof v === "number" && Number.isFinite(v);
  const fixed = (v, d) => (isNum(v) ? v.toFixed(d) : DASH);
  const pct = (v) => (isNum(v) ? (v * 100).toFixed(1) + "%" : DASH);
  const ms = (v) => (isNum(v) ? Math.round(v).toLocaleString("en") + " ms" : DASH);
  const usd = (v) => (isNum(v) ? "$" + v.toFixed(4) : DASH);
  const yesNo = (v) => (v === true ? "yes" : v === false ? "no" : DASH);
  const rightWord = (v) => (v === true ? "right" : v === false ? "wrong" : "not scored");
  const badge = (text, cls) => el("span", "badge " + (cls || ""), text);

  // Lower-cased text the search looks in: the id, the question, the expected and both answers.
  const HAY = new Map(
    CASES.map((c) => {
      const base = c.change ? c.change.baseline.answer : "";
      return [c.id, [c.id, c.question, c.expected, c.answer, base].filter(Boolean).join("\n").toLowerCase()];
    })
  );
  const INDEX = new Map(CASES.map((c, i) => [c.id, i]));

  // --- the URL fragment ------------------------------------------------------------------------------
  function readHash() {
    const params = new URLSearchParams(location.hash.replace(/^#/, ""));
    Object.assign(state, DEFAULTS);
    FLAGS.forEach((f) => (state[f] = params.get(f) === "1"));
    state.sort = KEYS[params.get("sort")] ? params.get("sort") : "";
    state.dir = params.get("dir") === "desc" ? "desc" : "asc";
    state.tag = params.get("tag") || "";
    state.q = params.get("q") || "";
    state.page = Math.max(0, parseInt(params.get("page") || "0", 10) || 0);
    state.diff = params.get("diff") || "all";
    open.clear();
    (params.get("open") || "").split(",").filter((id) => BY_ID.has(id)).forEach((id) => open.add(id));
  }
  function writeHash() {
    const params = new URLSearchParams();
    if (state.sort) params.set("sort", state.sort);
    if (state.sort && state.dir === "desc") params.set("dir", "desc");
    FLAGS.forEach((f) => state[f] && params.set(f, "1"));
    if (state.tag) params.set("tag", state.tag);
    if (state.q) params.set("q", state.q);
    if (state.page) params.set("page", String(state.page));
    if (state.diff !== "all") params.set("diff", state.diff);
    if (open.size) params.set("open", [...open].join(","));
    const text = params.toString();
    try {
      history.replaceState(null, "", text ? "#" + text : location.pathname + location.search);
    } catch (e) {
      // Some browsers refuse replaceState on local files; the view still works, unbookmarked.
    }
  }

  // --- filtering and sorting -------------------------------------------------------------------------
  const KEYS = {
    id: (c) => c.id,
    tags: (c) => c.tags.join(", "),
    status: (c) => c.status,
    correct: (c) => (c.correct === null ? null : c.correct ? 1 : 0),
    confidence: (c) => c.confidence,
    support_rank: (c) => c.support_rank,
    token_f1: (c) => c.token_f1,
    latency_ms: (c) => c.latency_ms,
    cost_usd: (c) => c.cost_usd,
    change: (c) => (c.change ? OUTCOME_RANK[c.change.outcome] ?? 5 : c.added ? 6 : null),
  };
  const missed = (c) => c.answerable && c.support_located && c.support_rank === null;

  function visible() {
    const needle = state.q.trim().toLowerCase();
    const rows = CASES.filter(
      (c) =>
        (!state.wrong || c.right === false) &&
        (!state.abstained || c.status === "abstained") &&
        (!state.missed || missed(c)) &&
        (!state.critical || c.critical) &&
        (!state.changed || c.change !== null || c.added) &&
        (!state.tag || c.tags.includes(state.tag)) &&
        (!needle || HAY.get(c.id).includes(needle))
    );
    if (!state.sort) return rows;
    const key = KEYS[state.sort];
    const sign = state.dir === "desc" ? -1 : 1;
    return rows.sort((a, b) => {
      const va = key(a);
      const vb = key(b);
      const na = va === null || va === undefined;
      const nb = vb === null || vb === undefined;
      if (na || nb) return na && nb ? INDEX.get(a.id) - INDEX.get(b.id) : na ? 1 : -1; // blanks last
      const order = typeof va === "string" ? va.localeCompare(vb) : va - vb;
      return order !== 0 ? sign * order : INDEX.get(a.id) - INDEX.get(b.id);
    });
  }

  // --- the case table --------------------------------------------------------------------------------
  const table = document.getElementById("case-table");
  const tbody = table.querySelector("tbody");
  const columns = table.querySelectorAll("thead th").length;

  function statusCell(c) {
    const td = el("td", "status");
    add(td, el("span", "st st-" + c.status, c.status));
    if (c.by_threshold) add(td, badge("by threshold", "muted-badge"));
    return td;
  }
  function changeCell(c) {
    const td = el("td", "change");
    if (c.change) {
      if (c.change.outcome !== "unchanged") add(td, badge(c.change.outcome, "out-" + c.change.outcome));
      if (c.change.retrieval) add(td, badge("retrieval " + c.change.retrieval, "ret-" + c.change.retrieval));
    } else if (c.added) {
      add(td, badge("added", "out-added"));
    }
    return td;
  }
  function row(c) {
    const tr = el("tr", "case " + (c.right === true ? "right" : c.right === false ? "wrong" : "unscored"));
    tr.setAttribute("data-id", c.id);
    tr.setAttribute("aria-expanded", open.has(c.id) ? "true" : "false");
    tr.tabIndex = 0;
    const tags = el("td", "tags");
    c.tags.forEach((t) => add(tags, badge(t, DATA.critical_tags.includes(t) ? "crit" : "")));
    add(
      tr,
      el("td", "expander", open.has(c.id) ? "▾" : "▸"),
      el("td", "id", c.id),
      tags,
      statusCell(c),
      el("td", "correct", yesNo(c.correct)),
      el("td", "num confidence", fixed(c.confidence, 3)),
      el("td", "num", c.support_rank === null ? DASH : c.support_rank),
      el("td", "num", fixed(c.token_f1, 2)),
      el("td", "num", ms(c.latency_ms)),
      el("td", "num", usd(c.cost_usd))
    );
    if (DATA.diff) add(tr, changeCell(c));
    return tr;
  }

  function renderTable() {
    const rows = visible();
    const pages = Math.max(1, Math.ceil(rows.length / PAGE));
    state.page = Math.min(state.page, pages - 1);
    const start = state.page * PAGE;
    const shown = rows.slice(start, start + PAGE);
    const fragment = document.createDocumentFragment();
    shown.forEach((c) => {
      fragment.appendChild(row(c));
      if (open.has(c.id)) {
        const tr = el("tr", "detail-row");
        const td = el("td");
        td.colSpan = columns;
        tr.appendChild(add(td, detail(c)));
        fragment.appendChild(tr);
      }
    });
    tbody.replaceChildren(fragment);
    const count = document.getElementById("count");
    count.textContent = rows.length
      ? `Showing ${start + 1}–${start + shown.length} of ${rows.length} matching cases (${CASES.length} in the report).`
      : `No case matches (${CASES.length} in the report).`;
    renderPager(pages);
    table.querySelectorAll("thead th[data-key]").forEach((th) => {
      const key = th.getAttribute("data-key");
      th.setAttribute("aria-sort", key === state.sort ? (state.dir === "desc" ? "descending" : "ascending") : "none");
    });
  }

  function renderPager(pages) {
    const nav = document.getElementById("pager");
    nav.replaceChildren();
    if (pages <= 1) return;
    const go = (page) => () => {
      state.page = page;
      update();
    };
    const prev = el("button", "", "‹ previous");
    prev.type = "button";
    prev.disabled = state.page === 0;
    prev.addEventListener("click", go(state.page - 1));
    const next = el("button", "", "next ›");
    next.type = "button";
    next.disabled = state.page >= pages - 1;
    next.addEventListener("click", go(state.page + 1));
    add(nav, prev, el("span", "muted", ` page ${state.page + 1} of ${pages} `), next);
  }

  // --- one case in full ------------------------------------------------------------------------------
  function field(name, value, cls) {
    const box = el("div", "field " + (cls || ""));
    return add(box, el("div", "label", name), el("div", "value", value === null || value === undefined || value === "" ? DASH : value));
  }
  function answerText(c) {
    if (c.answer !== null && c.answer !== undefined) return (c.by_threshold ? "(withheld by the threshold) " : "") + c.answer;
    if (c.status === "error") return "(failed: " + (c.error || "no message") + ")";
    return c.status === "abstained" ? "(abstained)" : DASH;
  }
  function facts(c) {
    const parts = [
      "status " + c.status + (c.by_threshold ? " (withheld by the threshold)" : ""),
      rightWord(c.right),
      "confidence " + fixed(c.confidence, 3),
      "correct " + yesNo(c.correct),
      "token F1 " + fixed(c.token_f1, 2),
      "exact match " + yesNo(c.exact_match),
      "judge grade " + fixed(c.judge_score, 2),
      "claims verified " + (c.claims_verified[1] ? `${c.claims_verified[0]} of ${c.claims_verified[1]}` : DASH),
      ms(c.latency_ms),
      usd(c.cost_usd),
    ];
    if (c.difficulty) parts.push("difficulty " + c.difficulty);
    return el("p", "facts", parts.join(" · "));
  }
  function samplesLine(c) {
    // Several answers per case: how many of them were right, and how much they agreed.
    if (!c.samples) return null;
    const s = c.samples;
    const parts = [`right in ${isNum(s.right) ? s.right : DASH} of ${s.n} samples`];
    if (isNum(s.agreement)) parts.push(`agreement ${pct(s.agreement)}`);
    const box = add(el("div", "samples-box"), el("p", "samples", "Samples: " + parts.join("; ")));
    if (s.others && s.others.length) {
      const rows = s.others.map((x) => [x.sample ?? DASH, x.status || DASH, rightWord(x.right), fixed(x.confidence, 3), x.answer ?? ""]);
      add(box, smallTable(["sample", "status", "verdict", "confidence", "answer"], rows, null, "sample-list"));
    }
    return box;
  }
  function judge(c) {
    const box = el("div", "block");
    add(box, el("h4", "", "Judge"));
    if (!c.judge) {
      const verdict = c.correct === null ? "no verdict" : "verdict: " + (c.correct ? "correct" : "wrong");
      const why = DATA.has_run ? "the judge saw no answer" : "the rationale is in the run artifact: pass --run";
      return add(box, el("p", "muted", `${verdict}; ${why}`));
    }
    const j = c.judge;
    const verdict = j.correct === true ? "correct" : j.correct === false ? "wrong" : "no verdict";
    const grade = isNum(j.score) ? `, grade ${j.score.toFixed(2)}` : "";
    add(box, el("p", "", `${j.name} (${j.rule_version || "?"}): ${verdict}${grade}`));
    if (j.rationale) add(box, el("p", "rationale", j.rationale));
    return box;
  }
  function claims(c) {
    if (!c.claims || !c.claims.length) return null;
    const box = add(el("div", "block"), el("h4", "", "Claims"));
    const list = el("ul", "claims");
    c.claims.forEach((claim) => {
      const li = el("li", claim.verified ? "verified" : "unverified");
      add(li, el("span", "mark", claim.verified ? "✓ verified" : "✗ not verified"), el("span", "", " " + claim.text));
      if (claim.cited.length) add(li, el("span", "muted", " — cites " + claim.cited.join(", ")));
      list.appendChild(li);
    });
    return add(box, list);
  }
  function smallTable(headers, rows, rowClass, tableClass) {
    const t = el("table", "small " + (tableClass || ""));
    const head = el("tr");
    headers.forEach((h) => add(head, el("th", "", h)));
    add(t, add(el("thead"), head));
    const body = el("tbody");
    rows.forEach((cells, i) => {
      const tr = el("tr", rowClass ? rowClass(i) : "");
      cells.forEach((cell) => add(tr, cell instanceof Node ? add(el("td"), cell) : el("td", "", cell)));
      body.appendChild(tr);
    });
    return add(t, body);
  }
  function citations(c) {
    const box = add(el("div", "block"), el("h4", "", `Citations (${c.cited.length})`));
    if (!c.cited.length) return add(box, el("p", "muted", "none"));
    const quotes = c.quotes || {};
    const rows = c.cited.map((x) => [x.chunk_id, x.doc || DASH, x.rank === null ? "not retrieved" : x.rank, quotes[x.chunk_id] || ""]);
    return add(box, smallTable(["chunk", "document", "rank", "quote"], rows));
  }
  // A target says (or not) which of its passages its answerer used; the config's top_k is not that.
  function contextNote(c) {
    if (!isNum(c.context_size)) return "; the target did not say which passages its answerer used";
    return `; the answerer used ${c.context_size} passage${c.context_size === 1 ? "" : "s"}`;
  }
  function retrieved(c) {
    const box = el("div", "block");
    const rank = c.support_rank === null ? (c.support_located ? "never retrieved" : "not located") : c.support_rank;
    const given = DATA.target ? contextNote(c) : isNum(DATA.top_k) ? `; the top ${DATA.top_k} went to the answerer` : "";
    add(box, el("h4", "", "Retrieved"), el("p", "muted", "support rank: " + rank + given));
    if (!c.retrieved) {
      return add(box, el("p", "muted", "The retrieved list with scores is in the run artifact: pass --run."));
    }
    // Each chunk is a row: [rank, chunk_id, doc, score, support, cited] (render/explorer/cases.py: RETRIEVED_COLUMNS),
    // its document an index into DATA.docs.
    const rows = c.retrieved.map(([rank, chunk, doc, score, support, cited]) => [
      rank,
      chunk,
      DATA.docs[doc],
      fixed(score, 3),
      [support ? "★ support" : "", cited ? "cited" : ""].filter(Boolean).join(", "),
    ]);
    const cls = (i) => {
      const [rank, , , , support] = c.retrieved[i];
      const beyond = DATA.target ? Array.isArray(c.context) && !c.context.includes(c.retrieved[i][1]) : isNum(DATA.top_k) && rank > DATA.top_k;
      return [support ? "support" : "", beyond ? "beyond" : ""].join(" ");
    };
    return add(box, smallTable(["rank", "chunk", "document", "score", ""], rows, cls, "retrieved"));
  }
  // An abstained case with an answer is one the threshold withheld: show what was withheld, and say so.
  const sideAnswer = (s) => {
    if (s.answer === null || s.answer === undefined) return "(" + s.status + ")";
    return s.status === "abstained" ? "(withheld) " + s.answer : s.answer;
  };
  // The case as this report saw it, in the shape of the baseline's side of a change.
  const own = (c) => ({ status: c.status, right: c.right, answer: c.answer, confidence: c.confidence, support_rank: c.support_rank });
  function sides(c) {
    const ch = c.change;
    const grid = el("div", "sides");
    [
      ["baseline (" + DATA.diff.baseline + ")", ch.baseline],
      ["this report", own(c)],
    ].forEach(([title, s]) => {
      const col = add(el("div", "side " + (s.right ? "right" : "wrong")), el("h5", "", title));
      add(
        col,
        el("p", "facts", [s.status, rightWord(s.right), "confidence " + fixed(s.confidence, 3), "support rank " + (s.support_rank === null ? DASH : s.support_rank)].join(" · ")),
        el("p", "answer", sideAnswer(s))
      );
      grid.appendChild(col);
    });
    return grid;
  }
  function changeLine(c) {
    const ch = c.change;
    const words = ch.outcome === "unchanged" ? [] : [ch.outcome === "changed" ? "changed while wrong" : ch.outcome];
    if (ch.transition) words.push(ch.transition.replace("_", " "));
    if (ch.retrieval) words.push("retrieval " + ch.retrieval);
    const p = el("p", "change-line");
    if (ch.critical) add(p, badge("critical", "crit"));
    return add(p, el("span", "", " " + words.join(", ")));
  }
  function detail(c) {
    const box = el("div", "detail");
    add(box, field("question", c.question), field("expected", expectedText(c)));
    add(box, field("answer", answerText(c), "answer"), facts(c), samplesLine(c));
    if (c.change) add(box, changeLine(c), sides(c));
    add(box, add(el("div", "blocks"), add(el("div", "stack"), judge(c), claims(c), citations(c)), retrieved(c)));
    return box;
  }

  // --- the item diff ---------------------------------------------------------------------------------
  const DIFF_KINDS = [
    ["all", "all changes", () => true],
    ["broke", "broke", (c) => c.change.outcome === "broke"],
    ["fixed", "fixed", (c) => c.change.outcome === "fixed"],
    ["changed", "changed while wrong", (c) => c.change.outcome === "changed"],
    ["flaky", "flaky", (c) => c.change.outcome === "flaky"],
    ["lost", "retrieval lost", (c) => c.change.retrieval === "lost"],
    ["gained", "retrieval gained", (c) => c.change.retrieval === "gained"],
  ];
  function expectedText(c) {
    if (c.expected !== null && c.expected !== undefined) return c.expected;
    return c.answerable ? DASH : "(unanswerable: the right response is to abstain)";
  }
  function sideCell(s) {
    const td = el("td", "side-cell " + (s.right ? "right" : "wrong"));
    const facts = [s.status, rightWord(s.right), "conf " + fixed(s.confidence, 3), "rank " + (s.support_rank === null ? DASH : s.support_rank)];
    return add(td, el("div", "facts", facts.join(" · ")), el("div", "answer", sideAnswer(s)));
  }
  function diffRow(c) {
    const tr = el("tr", "diff-row out-" + c.change.outcome);
    tr.setAttribute("data-id", c.id);
    const id = add(el("td", "id-cell"), el("div", "id", c.id), changeLine(c));
    const show = el("button", "link", "show in table");
    show.type = "button";
    show.addEventListener("click", () => {
      Object.assign(state, DEFAULTS, { q: c.id, diff: state.diff });
      FLAGS.forEach((f) => (state[f] = false));
      open.add(c.id);
      update();
      document.getElementById("cases").scrollIntoView();
    });
    add(id, show);
    const question = add(el("td", "question-cell"), el("div", "", c.question), el("div", "muted", "expected: " + expectedText(c)));
    return add(tr, id, question, sideCell(c.change.baseline), sideCell(own(c)));
  }
  function renderDiff() {
    if (!DATA.diff) return;
    const kinds = document.getElementById("diff-kinds");
    const changed = DATA.diff.order.map((id) => BY_ID.get(id));
    kinds.replaceChildren();
    DIFF_KINDS.forEach(([name, label, test]) => {
      const n = changed.filter(test).length;
      if (!n && name !== "all") return;
      const b = el("button", state.diff === name ? "kind active" : "kind", `${label} (${n})`);
      b.type = "button";
      b.setAttribute("aria-pressed", state.diff === name ? "true" : "false");
      b.addEventListener("click", () => {
        state.diff = name;
        diffShown = DIFF_PAGE;
        update();
      });
      kinds.appendChild(b);
    });
    const removed = DATA.diff.removed;
    if (removed.length) kinds.appendChild(el("span", "muted", ` · ${removed.length} in the baseline only: ` + removed.map((r) => r.id + (r.critical ? " (critical)" : "")).join(", ")));
    const test = (DIFF_KINDS.find((k) => k[0] === state.diff) || DIFF_KINDS[0])[2];
    const chosen = changed.filter(test);
    const body = document.querySelector("#diff-table tbody");
    const fragment = document.createDocumentFragment();
    chosen.slice(0, diffShown).forEach((c) => fragment.appendChild(diffRow(c)));
    body.replaceChildren(fragment);
    document.getElementById("diff-empty").hidden = chosen.length > 0;
    document.getElementById("diff-table").hidden = chosen.length === 0;
    const more = document.getElementById("diff-more");
    more.hidden = chosen.length <= diffShown;
    more.textContent = `show more (${chosen.length - diffShown} left)`;
  }

  // --- wiring ----------------------------------------------------------------------------------------
  function syncControls() {
    FLAGS.forEach((f) => {
      const box = document.getElementById("f-" + f);
      if (box) box.checked = state[f];
    });
    document.getElementById("f-tag").value = state.tag;
    document.getElementById("f-text").value = state.q;
  }
  function update() {
    writeHash();
    syncControls();
    renderTable();
    renderDiff();
  }

  const tagSelect = document.getElementById("f-tag");
  DATA.tags.forEach((t) => {
    const option = el("option", "", DATA.critical_tags.includes(t) ? t + " (critical)" : t);
    option.value = t;
    tagSelect.appendChild(option);
  });
  FLAGS.forEach((f) => {
    const box = document.getElementById("f-" + f);
    if (!box) return;
    box.addEventListener("change", () => {
      state[f] = box.checked;
      state.page = 0;
      update();
    });
  });
  tagSelect.addEventListener("change", () => {
    state.tag = tagSelect.value;
    state.page = 0;
    update();
  });
  const search = document.getElementById("f-text");
  let typing = 0;
  search.addEventListener("input", () => {
    clearTimeout(typing);
    typing = setTimeout(() => {
      state.q = search.value;
      state.page = 0;
      update();
    }, 150);
  });
  document.getElementById("controls").addEventListener("submit", (e) => e.preventDefault());
  document.getElementById("f-reset").addEventListener("click", () => {
    Object.assign(state, DEFAULTS);
    FLAGS.forEach((f) => (state[f] = false));
    open.clear();
    update();
  });
  table.querySelectorAll("thead th[data-key] button").forEach((button) => {
    button.addEventListener("click", () => {
      const key = button.parentElement.getAttribute("data-key");
      if (state.sort === key) state.dir = state.dir === "asc" ? "desc" : "asc";
      else Object.assign(state, { sort: key, dir: "asc" });
      state.page = 0;
      update();
    });
  });
  const toggle = (tr) => {
    const id = tr.getAttribute("data-id");
    if (open.has(id)) open.delete(id);
    else open.add(id);
    update();
  };
  tbody.addEventListener("click", (e) => {
    const tr = e.target.closest("tr.case");
    if (tr && !window.getSelection().toString()) toggle(tr);
  });
  tbody.addEventListener("keydown", (e) => {
    const tr = e.target.closest("tr.case");
    if (tr && (e.key === "Enter" || e.key === " ")) {
      e.preventDefault();
      toggle(tr);
    }
  });
  const more = document.getElementById("diff-more");
  if (more) {
    more.addEventListener("click", () => {
      diffShown += DIFF_PAGE;
      renderDiff();
    });
  }
  window.addEventListener("hashchange", () => {
    readHash();
    syncControls();
    renderTable();
    renderDiff();
  });
  readHash();
  update();
  document.documentElement.setAttribute("data-ready", "1");
})();
