// The web page of `rein serve`: plain JavaScript, no framework, no build step.
// Session text reaches the DOM only through the server's escaped `html` fields or textContent.
"use strict";

(() => {
  const TOKEN_KEY = "rein-token";
  const PAGE = 200;
  const MAX_PAGE = 2000; // the server's limit per page
  const MAX_MARKS = 30;
  const MAX_NOTICES = 6;
  const RECONNECT_MS = 1000;
  const CSRF = metaContent("rein-csrf");
  const AUTH = metaContent("rein-auth");

  const state = { info: null, sessions: [], session: null, started: false };

  // ---- small DOM helpers ----

  function metaContent(name) {
    const meta = document.querySelector(`meta[name="${name}"]`);
    return meta ? meta.getAttribute("content") || "" : "";
  }

  function byTest(id) {
    return document.querySelector(`[data-testid="${id}"]`);
  }

  function el(tag, attrs = {}, text = null) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
    if (text !== null) node.textContent = text;
    return node;
  }

  function number(value) {
    return Number(value || 0).toLocaleString("en-US");
  }

  function ago(ms) {
    if (!ms) return "never";
    const minutes = Math.round((Date.now() - ms) / 60000);
    if (minutes < 1) return "just now";
    if (minutes < 60) return `${minutes} min ago`;
    if (minutes < 60 * 24) return `${Math.round(minutes / 60)} h ago`;
    return new Date(ms).toISOString().slice(0, 10);
  }

  function sessionPath(id, tail = "") {
    return `/web/api/sessions/${encodeURIComponent(id)}${tail}`;
  }

  // ---- the API ----

  class ApiError extends Error {
    constructor(status, code, message) {
      super(message);
      this.status = status;
      this.code = code;
    }
  }

  function authHeaders() {
    const headers = {};
    const token = sessionStorage.getItem(TOKEN_KEY);
    if (token) headers.Authorization = `Bearer ${token}`;
    return headers;
  }

  async function api(path, { method = "GET", body } = {}) {
    const headers = { Accept: "application/json", ...authHeaders() };
    const init = { method, headers };
    if (method !== "GET") {
      headers["X-Rein-CSRF"] = CSRF;
      headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body === undefined ? {} : body);
    }
    const response = await fetch(path, init);
    let data = null;
    try {
      data = await response.json();
    } catch {
      data = null;
    }
    if (response.status === 401) {
      askToken(headers.Authorization ? "The server refused that token; enter it again." : "");
      throw new ApiError(401, "UNAUTHORIZED", "the server needs its token");
    }
    if (!response.ok) {
      const code = (data && data.code) || `HTTP_${response.status}`;
      throw new ApiError(response.status, code, (data && data.error) || response.statusText);
    }
    return data;
  }

  function report(error) {
    if (error instanceof ApiError && error.status === 401) return;
    notify(error instanceof Error ? error.message : String(error), "error");
  }

  // ---- notices ----

  function notify(message, level = "info") {
    const list = byTest("notices");
    const item = el("li", { class: `notice ${level}` });
    item.append(el("span", {}, message));
    const close = el("button", { type: "button", class: "dismiss", "aria-label": "Dismiss notice" }, "Dismiss");
    close.addEventListener("click", () => item.remove());
    item.append(close);
    list.append(item);
    while (list.children.length > MAX_NOTICES) list.firstElementChild.remove();
  }

  // ---- token ----

  function askToken(message) {
    leaveSession();
    showView(null);
    const form = byTest("token-form");
    document.getElementById("token-error").textContent = message;
    form.hidden = false;
    byTest("token-input").value = "";
    byTest("token-input").focus();
  }

  function onTokenSubmit(event) {
    event.preventDefault();
    const token = byTest("token-input").value.trim();
    if (!token) return;
    sessionStorage.setItem(TOKEN_KEY, token);
    byTest("token-form").hidden = true;
    start();
  }

  // ---- views and routes ----

  function showView(name) {
    document.getElementById("view-list").hidden = name !== "list";
    document.getElementById("view-session").hidden = name !== "session";
    document.getElementById("view-missing").hidden = name !== "missing";
    if (name) byTest("token-form").hidden = true;
  }

  async function start() {
    if (AUTH === "required" && !sessionStorage.getItem(TOKEN_KEY)) {
      askToken("");
      return;
    }
    try {
      state.info = await api("/web/api/info");
    } catch (error) {
      report(error);
      return;
    }
    const info = state.info;
    document.getElementById("server-info").textContent =
      `${info.provider}${info.model ? "/" + info.model : ""} · approve ${info.approve || "per directory"} · rein ${info.version}`;
    document.getElementById("new-cwd").placeholder = info.cwd || "the server's directory";
    state.started = true;
    route();
  }

  function route() {
    if (!state.started) return;
    const match = /^#\/s\/(.+)$/.exec(location.hash);
    if (match) openSession(decodeURIComponent(match[1]));
    else openList();
  }

  // ---- the sessions list ----

  async function openList() {
    leaveSession();
    showView("list");
    document.title = "rein: sessions";
    try {
      const data = await api("/web/api/sessions");
      state.sessions = data.sessions;
      fillModelFilter();
      renderList();
    } catch (error) {
      report(error);
    }
  }

  function fillModelFilter() {
    const select = byTest("filter-model");
    const chosen = select.value;
    const models = [...new Set(state.sessions.map((s) => s.model).filter(Boolean))].sort();
    select.replaceChildren(el("option", { value: "" }, "any"));
    for (const model of models) select.append(el("option", { value: model }, model));
    select.value = models.includes(chosen) ? chosen : "";
  }

  function filtered() {
    const query = byTest("search").value.trim().toLowerCase();
    const model = byTest("filter-model").value;
    const size = Number(byTest("filter-size").value || 0);
    const days = Number(byTest("filter-date").value || 0);
    const since = days ? Date.now() - days * 86400000 : 0;
    return state.sessions.filter(
      (s) =>
        (!query || s.firstPrompt.toLowerCase().includes(query) || s.id.toLowerCase().includes(query)) &&
        (!model || s.model === model) &&
        s.entryCount >= size &&
        s.updatedAt >= since,
    );
  }

  function renderList() {
    const list = byTest("session-list");
    list.replaceChildren();
    const groups = new Map();
    for (const session of filtered()) {
      const key = session.cwd ?? "(no directory)";
      if (!groups.has(key)) groups.set(key, []);
      groups.get(key).push(session);
    }
    if (!groups.size) {
      const empty = state.sessions.length ? "No session matches the filters." : "No sessions yet.";
      list.append(el("p", { class: "empty" }, empty));
      return;
    }
    for (const [cwd, sessions] of groups) {
      const group = el("section", { class: "group" });
      group.append(el("h2", { class: "group-title" }, `${cwd} (${sessions.length})`));
      const rows = el("ul", { class: "rows" });
      for (const session of sessions) rows.append(sessionRow(session));
      group.append(rows);
      list.append(group);
    }
  }

  function sessionRow(session) {
    const item = el("li");
    const link = el("a", {
      class: "session-row",
      href: `#/s/${encodeURIComponent(session.id)}`,
      "data-testid": "session-row",
      "data-session-id": session.id,
    });
    link.append(el("span", { class: "first-prompt" }, session.firstPrompt || "(no prompt yet)"));
    if (session.running) link.append(el("span", { class: "badge running" }, "running"));
    const facts = `${number(session.entryCount)} entries · ${session.model || "no model"} · ` +
      `updated ${ago(session.updatedAt)} · ${session.id}`;
    link.append(el("span", { class: "meta" }, facts));
    item.append(link);
    return item;
  }

  async function newSession(event) {
    event.preventDefault();
    const cwd = document.getElementById("new-cwd").value.trim();
    try {
      const data = await api("/web/api/sessions", { method: "POST", body: cwd ? { cwd } : {} });
      location.hash = `#/s/${encodeURIComponent(data.id)}`;
    } catch (error) {
      report(error);
    }
  }

  // ---- one session ----

  function leaveSession() {
    const session = state.session;
    if (!session) return;
    session.events.abort();
    state.session = null;
    const dialog = byTest("question");
    if (dialog.open) dialog.close();
  }

  async function openSession(id) {
    if (!state.session || state.session.id !== id) {
      leaveSession();
      state.session = {
        id, events: new AbortController(), lastSeq: null, running: false, runEvents: 0,
        shownFrom: 0, shown: 0, loading: null, dirty: false, question: null, first: true, liveStale: false, reading: false,
        missing: false,
      };
      resetSessionView(id);
    }
    const session = state.session;
    if (session.missing) {
      showView("missing");
      return;
    }
    showView("session");
    selectTab("conversation", false);
    await loadConversation();
    // Events start after the first load, from the sequence number it saw: older runs are not replayed.
    if (state.session === session && !session.reading && !session.missing) {
      session.reading = true;
      readEvents(session);
    }
  }

  function resetSessionView(id) {
    document.title = `rein: ${id}`;
    document.getElementById("session-title").textContent = `Session ${id}`;
    document.getElementById("session-cwd").textContent = "";
    byTest("conversation").replaceChildren();
    byTest("tree").replaceChildren();
    byTest("rules").replaceChildren();
    byTest("earlier").hidden = true;
    byTest("counters").replaceChildren();
    byTest("branch-note").hidden = true;
    clearLive(true);
    setRunState("idle");
  }

  function loadConversation() {
    const session = state.session;
    if (!session) return Promise.resolve();
    if (session.loading) {
      session.dirty = true;
      return session.loading;
    }
    session.loading = (async () => {
      do {
        session.dirty = false;
        const limit = Math.min(MAX_PAGE, Math.max(PAGE, session.shown + 20));
        const data = await api(sessionPath(session.id, `?limit=${limit}`));
        if (state.session !== session) return;
        renderConversation(session, data);
      } while (session.dirty);
    })()
      .catch((error) => {
        if (error instanceof ApiError && error.code === "SESSION_NOT_FOUND") showMissing(session);
        else report(error);
      })
      .finally(() => {
        session.loading = null;
      });
    return session.loading;
  }

  // An unknown session id: a plain not-found view with a way back, nothing else.
  function showMissing(session) {
    if (state.session !== session) return;
    session.missing = true;
    session.events.abort();
    document.title = "rein: session not found";
    byTest("missing-id").textContent = session.id;
    showView("missing");
  }

  function lastReplyId() {
    const replies = byTest("conversation").querySelectorAll("article.assistant");
    return replies.length ? replies[replies.length - 1].dataset.entryId : null;
  }

  function nearBottom() {
    const root = document.documentElement;
    return root.scrollHeight - (window.scrollY + window.innerHeight) < 120;
  }

  function renderConversation(session, data) {
    const follow = session.first || nearBottom();
    document.getElementById("session-cwd").textContent = data.cwd || "(no directory)";
    byTest("conversation").innerHTML = data.html; // escaped by the server (rein.html)
    session.shownFrom = data.shownFrom;
    session.shown = data.branchLength - data.shownFrom;
    if (session.lastSeq === null && Number.isInteger(data.eventSeq)) session.lastSeq = String(data.eventSeq);
    byTest("earlier").hidden = !data.hasEarlier;
    // The streamed reply is on the page now, rendered: it replaces the plain text of the live box.
    if (session.liveStale && lastReplyId() !== session.liveAnchor) {
      clearLive(false);
      session.liveStale = false;
      session.liveAnchor = undefined;
    }
    reopenChanges(session);
    setCounters(data.counters);
    setBranchNote(data.branch);
    setRunState(data.run.state);
    if (data.run.question) showQuestion(data.run.question);
    if (follow) window.scrollTo(0, document.documentElement.scrollHeight);
    session.first = false;
  }

  async function loadEarlier() {
    const session = state.session;
    if (!session) return;
    try {
      const data = await api(sessionPath(session.id, `?limit=${PAGE}&before=${session.shownFrom}`));
      if (state.session !== session) return;
      const height = document.documentElement.scrollHeight;
      byTest("conversation").insertAdjacentHTML("afterbegin", data.html); // escaped by the server
      window.scrollBy(0, document.documentElement.scrollHeight - height);
      session.shownFrom = data.shownFrom;
      session.shown = data.branchLength - data.shownFrom;
      byTest("earlier").hidden = !data.hasEarlier;
    } catch (error) {
      report(error);
    }
  }

  function setRunState(value) {
    const session = state.session;
    if (session) session.running = value === "running";
    const badge = byTest("run-state");
    badge.textContent = value;
    badge.className = `run-state ${value}`;
    byTest("send").textContent = value === "running" ? "Steer" : "Send";
  }

  function setCounters(counters) {
    const box = byTest("counters");
    box.replaceChildren();
    if (!counters) return;
    const parts = [
      ["in", number(counters.input), "input tokens"],
      ["out", number(counters.output), "output tokens"],
      ["cache", `${number(counters.cacheRead)}/${number(counters.cacheWrite)}`, "cache read/write tokens"],
      ["total", number(counters.totalTokens), "total tokens"],
      ["cost", `$${Number(counters.cost || 0).toFixed(4)}`, "cost in US dollars"],
      ["turns", number(counters.turns), "turns"],
    ];
    for (const [label, value, title] of parts) {
      const item = el("span", { class: "counter", title });
      item.append(el("span", { class: "counter-label" }, label), document.createTextNode(" " + value));
      box.append(item);
    }
  }

  // After "Continue from here" the counters count the new branch only: say so, and where it starts.
  function setBranchNote(branch) {
    const note = byTest("branch-note");
    note.hidden = !branch;
    if (!branch) return;
    note.textContent =
      `Continued from entry ${branch.from}: the counters count this branch ` +
      `(${number(branch.branchEntries)} of the session's ${number(branch.sessionEntries)} entries).`;
  }

  // ---- tabs ----

  function selectTab(name, load = true) {
    for (const tab of document.querySelectorAll('[role="tab"]')) {
      const chosen = tab.dataset.tab === name;
      tab.setAttribute("aria-selected", String(chosen));
      tab.tabIndex = chosen ? 0 : -1;
      document.getElementById(tab.getAttribute("aria-controls")).hidden = !chosen;
    }
    if (!load) return;
    if (name === "tree") loadTree();
    if (name === "rules") loadRules();
  }

  function onTabKey(event) {
    const tabs = [...document.querySelectorAll('[role="tab"]')];
    const at = tabs.indexOf(document.activeElement);
    if (at < 0 || !["ArrowLeft", "ArrowRight"].includes(event.key)) return;
    const next = tabs[(at + (event.key === "ArrowRight" ? 1 : tabs.length - 1)) % tabs.length];
    next.focus();
    selectTab(next.dataset.tab);
  }

  async function loadTree() {
    const session = state.session;
    if (!session) return;
    try {
      const data = await api(sessionPath(session.id, "/tree"));
      if (state.session === session) byTest("tree").innerHTML = data.html; // escaped by the server
    } catch (error) {
      report(error);
    }
  }

  async function loadRules() {
    const session = state.session;
    if (!session) return;
    try {
      const data = await api(sessionPath(session.id, "/rules"));
      if (state.session === session) renderRules(data);
    } catch (error) {
      report(error);
    }
  }

  function renderRules(data) {
    const root = byTest("rules");
    root.replaceChildren(el("p", { class: "meta" }, `Rules in force in ${data.cwd || "(no directory)"}`));
    for (const [title, kind, rules] of [["Stream rules", "stream", data.stream], ["Steering rules", "steering", data.steering]]) {
      root.append(el("h2", {}, `${title} (${rules.length})`));
      if (!rules.length) {
        root.append(el("p", { class: "meta" }, "none"));
        continue;
      }
      const table = el("table", { class: `rules-table ${kind}` });
      const head = el("tr");
      for (const name of ["rule", "source", "what it checks", "fired"]) head.append(el("th", { scope: "col" }, name));
      table.append(el("thead"), el("tbody"));
      table.tHead.append(head);
      for (const rule of rules) {
        const row = el("tr", { "data-rule": rule.name });
        row.append(el("td", { class: "rule-name" }, rule.name), el("td", { class: "source" }, rule.source));
        let fired = String(rule.fired);
        if (rule.overridden) fired += `, overridden ${rule.overridden}`;
        if (rule.overridable) fired += " (overridable)";
        if (rule.verdict === "ask") fired += " (asks the user)";
        row.append(el("td", { class: "detail" }, rule.detail), el("td", { class: "fired" }, fired));
        table.tBodies[0].append(row);
      }
      const wrap = el("div", { class: "table-wrap" });
      wrap.append(table);
      root.append(wrap);
    }
    if (data.problems && data.problems.length) {
      root.append(el("h2", {}, "Problems"));
      const list = el("ul", { class: "warnings" });
      for (const problem of data.problems) list.append(el("li", {}, problem));
      root.append(list);
    }
  }

  // ---- the live box, fed by the events stream ----

  function live(part) {
    return byTest("live").querySelector(`.live-${part}`);
  }

  function updateLiveVisibility() {
    const box = byTest("live");
    box.hidden = ![...box.children].some((child) => child.childNodes.length > 0);
  }

  function clearLive(marks) {
    for (const part of ["text", "thinking", "tool"]) live(part).replaceChildren();
    if (marks) live("marks").replaceChildren();
    updateLiveVisibility();
  }

  function liveMark(kind, label, detail = "", cutText = "") {
    const item = el("li", { class: `mark ${kind}` });
    item.append(el("strong", {}, label));
    if (detail) item.append(document.createTextNode(" " + detail));
    if (cutText) item.append(el("del", { class: "cut-text" }, cutText));
    const marks = live("marks");
    marks.append(item);
    while (marks.children.length > MAX_MARKS) marks.firstElementChild.remove();
    updateLiveVisibility();
  }

  // One line per tool call, updated in place from "running" to its exit status.
  function toolMark(event, status) {
    const marks = live("marks");
    let item = event.id ? marks.querySelector(`li[data-call="${CSS.escape(event.id)}"]`) : null;
    if (!item) {
      item = el("li", { class: "mark tool" });
      if (event.id) item.dataset.call = event.id;
      item.append(el("strong", {}, event.name), document.createTextNode(" "));
      if (event.subject) item.append(el("code", {}, event.subject), document.createTextNode(" "));
      item.append(el("span", { class: "badge" }));
      marks.append(item);
      while (marks.children.length > MAX_MARKS) marks.firstElementChild.remove();
    }
    const failed = event.isError === true;
    item.className = `mark tool${failed ? " error" : ""}`;
    const badge = item.querySelector(".badge");
    badge.className = `badge ${status === "running" ? "pending" : failed ? "error" : "ok"}`;
    badge.textContent = status;
    updateLiveVisibility();
  }

  function appendDelta(event) {
    const part = event.source === "thinking" ? "thinking" : event.source === "tool" ? "tool" : "text";
    const box = live(part);
    if (part === "tool") {
      // The call's arguments arrive as raw JSON: the card shows them once the call is made.
      const name = event.toolName || "tool";
      let line = box.lastElementChild;
      if (!line || line.dataset.tool !== name) {
        line = el("div", { class: "writing", "data-tool": name, "data-chars": "0" });
        box.append(line);
      }
      line.dataset.chars = String(Number(line.dataset.chars) + event.text.length);
      line.textContent = `Writing a ${name} call (${number(line.dataset.chars)} characters)`;
      updateLiveVisibility();
      return;
    }
    box.append(document.createTextNode(event.text));
    updateLiveVisibility();
    if (nearBottom()) window.scrollTo(0, document.documentElement.scrollHeight);
  }

  function onEvent(session, event) {
    switch (event.type) {
      case "run":
        session.runEvents += 1;
        if (event.state === "running") clearLive(true);
        setRunState(event.state);
        if (event.state === "idle") {
          loadConversation().then(() => {
            if (state.session === session && !session.running) clearLive(false);
          });
          refreshOpenTab();
        }
        break;
      case "delta":
        if (session.liveStale) clearLive(false);
        if (session.liveStale || session.liveAnchor === undefined) session.liveAnchor = lastReplyId();
        session.liveStale = false;
        appendDelta(event);
        break;
      case "message":
        // The reply stays in the live box until the next one starts: the refetch may predate its flush.
        session.liveStale = true;
        loadConversation();
        break;
      case "tool":
        live("tool").replaceChildren();
        if (event.phase === "start") toolMark(event, "running");
        else toolMark(event, event.status || (event.isError ? "failed" : "done"));
        break;
      case "cut":
        clearLive(false);
        liveMark(
          "cut",
          event.rules.length ? `Stream rule ${event.rules.join(", ")} cut the reply:` : "A stream rule cut the reply:",
          event.rules.length ? "dropped and retried" : `${event.reason}; dropped and retried`,
          event.text,
        );
        break;
      case "blocked":
        liveMark("blocked", `Blocked ${event.tool}:`, event.reason);
        break;
      case "notice":
        notify(event.message, event.level);
        break;
      case "question":
        showQuestion(event);
        break;
      case "answered":
        closeQuestion(event.id);
        break;
      case "usage":
        setCounters(event.counters);
        break;
      case "undone":
        loadConversation();
        refreshOpenTab();
        break;
      case "error":
        notify(`The run failed: ${event.message}`, "error");
        break;
      default:
        break;
    }
  }

  function refreshOpenTab() {
    if (!document.getElementById("panel-tree").hidden) loadTree();
    if (!document.getElementById("panel-rules").hidden) loadRules();
  }

  function parseBlock(session, block) {
    let seq = null;
    const data = [];
    for (const line of block.split("\n")) {
      if (!line || line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "id") seq = value;
      else if (field === "data") data.push(value);
    }
    if (seq !== null) session.lastSeq = seq;
    if (!data.length) return;
    let event;
    try {
      event = JSON.parse(data.join("\n"));
    } catch {
      return;
    }
    onEvent(session, event);
  }

  async function readEvents(session) {
    const signal = session.events.signal;
    while (!signal.aborted) {
      const after = session.lastSeq === null ? "" : `?after=${encodeURIComponent(session.lastSeq)}`;
      try {
        const response = await fetch(sessionPath(session.id, `/events${after}`), {
          headers: { Accept: "text/event-stream", ...authHeaders() }, signal,
        });
        if (response.status === 401) {
          askToken("The server refused that token; enter it again.");
          return;
        }
        if (response.status === 404) {
          showMissing(session);
          return;
        }
        if (response.ok && response.body) await readStream(session, response.body.getReader());
      } catch {
        if (signal.aborted) return;
      }
      await new Promise((resolve) => setTimeout(resolve, RECONNECT_MS));
    }
  }

  async function readStream(session, reader) {
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, "\n");
      let end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        parseBlock(session, buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
      }
    }
  }

  // ---- the prompt box ----

  async function send(kind) {
    const session = state.session;
    const input = byTest("prompt-input");
    const text = input.value.trim();
    if (!session || !text) return;
    let path = kind === "follow-up" ? "follow-up" : session.running ? "steer" : "prompt";
    const runEvents = session.runEvents;
    try {
      try {
        await api(sessionPath(session.id, `/${path}`), { method: "POST", body: { text } });
      } catch (error) {
        // The run state on the page was stale: send the same text the way the server can take it.
        if (error.code === "RUN_IN_PROGRESS") path = "steer";
        else if (error.code === "NO_RUN") path = "prompt";
        else throw error;
        await api(sessionPath(session.id, `/${path}`), { method: "POST", body: { text } });
      }
      input.value = "";
      if (path === "prompt" && session.runEvents === runEvents) {
        clearLive(true);
        setRunState("running");
      }
      if (path !== "prompt") liveMark("sent", path === "steer" ? "Steer sent:" : "Follow-up queued:", text);
    } catch (error) {
      report(error);
    }
  }

  async function abortRun() {
    const session = state.session;
    if (!session) return;
    try {
      await api(sessionPath(session.id, "/abort"), { method: "POST", body: {} });
    } catch (error) {
      report(error);
    }
  }

  function onPromptKey(event) {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      send("prompt");
    } else if (event.key === "Escape" && state.session && state.session.running) {
      event.preventDefault();
      abortRun();
    }
  }

  // When the files differ from that point's, ask (never restore silently): restore them, keep them, or
  // (Escape) stay where we are. Resolves "restore", "keep", or "" for cancel.
  function askRestore(files) {
    const dialog = byTest("restore");
    const many = files.length === 1 ? "1 file differs" : `${files.length} files differ`;
    byTest("restore-lead").textContent = `${many} from that point; restoring puts them back as they were.`;
    byTest("restore-files").replaceChildren(...files.map((path) => el("li", {}, path)));
    dialog.returnValue = "";
    dialog.showModal();
    return new Promise((resolve) => {
      dialog.addEventListener("close", () => resolve(dialog.returnValue), { once: true });
    });
  }

  async function continueFrom(entryId) {
    const session = state.session;
    if (!session) return;
    try {
      const files = await api(sessionPath(session.id, `/entries/${encodeURIComponent(entryId)}/files`));
      const choice = files.differing.length ? await askRestore(files.differing) : "keep";
      if (!choice) return;
      const restoreFiles = choice === "restore";
      const body = { entryId, restoreFiles };
      const data = await api(sessionPath(session.id, "/switch"), { method: "POST", body });
      notify(`Continuing from entry ${entryId}: the next prompt starts a branch there.`);
      if (files.note) notify(files.note, "warning");
      if (restoreFiles) notify(data.lines.join("\n"));
      selectTab("conversation", false);
      await loadConversation();
      byTest("prompt-input").focus();
    } catch (error) {
      report(error);
    }
  }

  // ---- checkpoints: a turn's file changes, and its undo ----

  function diffsBox(id) {
    return byTest("conversation").querySelector(`.checkpoint-diffs[data-checkpoint-id="${CSS.escape(id)}"]`);
  }

  function showDiffs(id, html) {
    const box = diffsBox(id);
    if (!box) return;
    box.innerHTML = html; // escaped by the server (rein.html.diff)
    box.hidden = false;
    const button = box.parentElement.querySelector("button.show-changes");
    if (button) button.textContent = "Hide the diffs";
  }

  // The conversation is re-rendered after every message: diffs that were open stay open.
  function reopenChanges(session) {
    for (const [id, html] of session.openDiffs || []) showDiffs(id, html);
  }

  async function toggleChanges(id) {
    const session = state.session;
    if (!session) return;
    session.openDiffs = session.openDiffs || new Map();
    if (session.openDiffs.has(id)) {
      session.openDiffs.delete(id);
      const box = diffsBox(id);
      if (box) {
        box.hidden = true;
        box.parentElement.querySelector("button.show-changes").textContent = "Show the diffs";
      }
      return;
    }
    try {
      const data = await api(sessionPath(session.id, `/checkpoints/${encodeURIComponent(id)}`));
      if (state.session !== session) return;
      session.openDiffs.set(id, data.html);
      showDiffs(id, data.html);
    } catch (error) {
      report(error);
    }
  }

  async function undoTurn(id) {
    const session = state.session;
    if (!session) return;
    const pending = [...byTest("conversation").querySelectorAll("article.checkpoint.pending .undo-turn")];
    const later = Math.max(0, pending.length - 1 - pending.findIndex((b) => b.dataset.checkpointId === id));
    const also = later ? ` and of the ${later} later turn(s) that changed files` : "";
    if (!window.confirm(`Put back the files of this turn${also}, as they were before it?`)) return;
    try {
      const data = await api(sessionPath(session.id, "/undo"), { method: "POST", body: { checkpointId: id } });
      notify(data.lines.join("\n"));
      await loadConversation();
    } catch (error) {
      report(error);
    }
  }

  // ---- questions (approval) ----

  function showQuestion(question) {
    const session = state.session;
    if (!session) return;
    const dialog = byTest("question");
    if (session.question && session.question.id === question.id && dialog.open) return;
    session.question = question;
    fillQuestion(question);
    const options = dialog.querySelector(".options");
    options.replaceChildren();
    const form = dialog.querySelector(".question-form");
    form.hidden = question.kind !== "input";
    const choices = question.kind === "select" ? question.options || [] : [];
    const keys = shortcuts(choices);
    session.question.keys = keys;
    choices.forEach((option, index) => {
      const button = el("button", { type: "button", "data-option": option, "aria-keyshortcuts": keys[index] });
      button.append(el("kbd", {}, keys[index].toUpperCase()), document.createTextNode(` ${option}`));
      if (/^deny/i.test(option)) button.classList.add("deny");
      button.addEventListener("click", () => answer(option));
      options.append(button);
    });
    const input = byTest("question-input");
    input.value = "";
    input.placeholder = question.placeholder || "";
    if (!dialog.open) dialog.showModal();
    (question.kind === "input" ? input : options.querySelector("button") || input).focus();
  }

  // An approval question (the server split it: reason, ask, command) shows its command in a code
  // block; any other question shows its title as it is.
  function fillQuestion(question) {
    const parts = question.parts;
    const lead = byTest("question-lead");
    const command = byTest("question-command");
    const notes = byTest("question-notes");
    lead.hidden = !(parts && parts.lead);
    lead.textContent = parts ? parts.lead : "";
    byTest("question-title").textContent = parts ? parts.ask : question.title;
    command.hidden = !parts;
    command.innerHTML = parts ? parts.commandHtml : ""; // escaped and highlighted by the server
    notes.replaceChildren(...(parts ? parts.notes : []).map((note) => el("li", {}, note)));
    notes.hidden = !notes.children.length;
  }

  // A key per choice: the initial of its last word, else of another word, else a digit.
  function shortcuts(choices) {
    const used = new Set();
    return choices.map((choice, index) => {
      const words = choice.toLowerCase().split(/\s+/).filter(Boolean);
      const initials = [...words.slice(-1), ...words.slice(0, -1)].map((word) => word[0]);
      const key = initials.find((letter) => /[a-z]/.test(letter) && !used.has(letter)) || String(index + 1);
      used.add(key);
      return key;
    });
  }

  function onQuestionKey(event) {
    const session = state.session;
    const question = session && session.question;
    if (!question || !question.keys || event.ctrlKey || event.metaKey || event.altKey) return;
    if (/^(INPUT|TEXTAREA)$/.test(document.activeElement.tagName)) return;
    const index = question.keys.indexOf(event.key.toLowerCase());
    if (index < 0) return;
    event.preventDefault();
    answer(question.options[index]);
  }

  function closeQuestion(id) {
    const session = state.session;
    if (!session || !session.question || session.question.id !== id) return;
    session.question = null;
    const dialog = byTest("question");
    if (dialog.open) dialog.close();
  }

  async function answer(value) {
    const session = state.session;
    if (!session || !session.question) return;
    const id = session.question.id;
    closeQuestion(id);
    try {
      await api(sessionPath(session.id, "/answer"), { method: "POST", body: { questionId: id, value } });
    } catch (error) {
      if (error.code !== "QUESTION_NOT_FOUND") report(error);
    }
  }

  // ---- wiring ----

  function onGlobalKey(event) {
    const typing = /^(INPUT|TEXTAREA|SELECT)$/.test(document.activeElement.tagName);
    if (event.key === "/" && !typing && !document.getElementById("view-list").hidden) {
      event.preventDefault();
      byTest("search").focus();
    }
  }

  function wire() {
    document.getElementById("skip").addEventListener("click", (event) => {
      event.preventDefault();
      document.getElementById("main").focus();
    });
    byTest("token-form").addEventListener("submit", onTokenSubmit);
    for (const id of ["search", "filter-model", "filter-size", "filter-date"]) {
      byTest(id).addEventListener(id === "search" ? "input" : "change", renderList);
    }
    document.getElementById("new-session-form").addEventListener("submit", newSession);
    for (const tab of document.querySelectorAll('[role="tab"]')) {
      tab.addEventListener("click", () => selectTab(tab.dataset.tab));
    }
    document.querySelector(".tabs").addEventListener("keydown", onTabKey);
    byTest("earlier").addEventListener("click", loadEarlier);
    document.getElementById("prompt-form").addEventListener("submit", (event) => {
      event.preventDefault();
      send("prompt");
    });
    byTest("prompt-input").addEventListener("keydown", onPromptKey);
    byTest("follow-up").addEventListener("click", () => send("follow-up"));
    byTest("abort").addEventListener("click", abortRun);
    document.addEventListener("click", (event) => {
      const button = event.target.closest("button.continue");
      if (button && state.session) continueFrom(button.dataset.entryId);
      const changes = event.target.closest("button.show-changes");
      if (changes) toggleChanges(changes.dataset.checkpointId);
      const undo = event.target.closest("button.undo-turn");
      if (undo) undoTurn(undo.dataset.checkpointId);
    });
    const dialog = byTest("question");
    dialog.addEventListener("cancel", (event) => {
      event.preventDefault();
      answer(null);
    });
    dialog.addEventListener("keydown", onQuestionKey);
    dialog.querySelector(".question-form").addEventListener("submit", (event) => {
      event.preventDefault();
      answer(byTest("question-input").value);
    });
    document.addEventListener("keydown", onGlobalKey);
    window.addEventListener("hashchange", route);
  }

  wire();
  start();
})();
