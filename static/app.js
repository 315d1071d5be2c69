// Wiring: one view state, one render pass, and window.memlens for tests and the curious.
const byId = (id) => document.getElementById(id);
const memlens = (window.memlens = { ready: false, network: null, foldName });

// The page's data is read asynchronously (the browser inflates it). Tabs work at once, so only
// the graph's panel is laid out meanwhile; the rest waits for the data: a search typed meanwhile
// is answered once it is read, and the address (an entity, a fact, a panel) is followed then.
async function startReport() {
  document.documentElement.classList.add("js");
  document.body.classList.add("on-graph"); // sized to the window before the graph measures its box
  const timings = (memlens.timings = { start: performance.now() });

  // Tabs: links that work without script; with it, one panel at a time and arrow-key movement.
  const tabs = [...document.querySelectorAll('.tab[role="tab"]')];
  const commandBar = document.querySelector(".command-bar");
  let shown = () => {}; // what a panel needs of the data when it is shown, once the data is read
  let chosen = false;   // a tab picked while the data was read wins over a panel named in the address
  function showTab(name, moveFocus) {
    document.body.classList.toggle("on-graph", name === "graph");
    // anchors land below the sticky bar (report.css: scroll-margin-top)
    document.documentElement.style.setProperty("--bar-height", commandBar.offsetHeight + "px");
    for (const tab of tabs) {
      const on = tab.id === "tab-" + name;
      tab.setAttribute("aria-selected", String(on));
      tab.tabIndex = on ? 0 : -1;
      byId(tab.getAttribute("aria-controls")).hidden = !on;
      if (on && moveFocus) tab.focus();
    }
    shown(name);
  }
  const isTab = (name) => tabs.some((tab) => tab.id === "tab-" + name);
  tabs.forEach((tab, i) => {
    tab.addEventListener("click", (event) => { event.preventDefault(); chosen = true; showTab(tab.id.slice(4)); });
    tab.addEventListener("keydown", (event) => {
      const step = event.key === "ArrowRight" ? 1 : event.key === "ArrowLeft" ? -1 : 0;
      if (!step) return;
      event.preventDefault();
      chosen = true;
      showTab(tabs[(i + step + tabs.length) % tabs.length].id.slice(4), true);
    });
  });
  const named = parseDeepLink(location.hash);
  showTab(named && named.kind === "panel" && isTab(named.value) ? named.value : "graph");
  byId("graph-status").textContent = "Reading the memory\u2026";

  let memory;
  try {
    memory = await loadMemory();
  } catch (error) {
    memlens.error = String(error && error.message || error);
    byId("graph-status").textContent = "This page's data could not be read (" + memlens.error + "). " +
      "It needs a browser that reads gzip natively (DecompressionStream: Chrome 80, Firefox 113, Safari 16.4 or newer).";
    return;
  }
  memlens.memory = memory;
  timings.dataLoaded = performance.now();
  const view = { asOfRecord: null, asOfValid: null, showSuperseded: Boolean(memory.showSuperseded),
                 hideArchived: false, hiddenTypes: new Set(), selected: null };
  let graph = null;

  const panel = createDetailPanel(memory, view, byId("detail"), {
    hiddenNeighbours: (entity) => graph.hiddenNeighbours(entity),
  });

  function statusLine() {
    const c = graph.counts();
    const parts = [plural(c.shown, "entity", "entities") + " shown"];
    if (c.notDrawn) parts.push(c.notDrawn.toLocaleString("en") + " more not drawn \u2014 search, or double-click a node to expand it");
    if (c.filtered) parts.push(c.filtered.toLocaleString("en") + " hidden by type filter");
    if (c.unrecorded) parts.push(c.unrecorded.toLocaleString("en") + " not in memory at the as-of time");
    byId("graph-status").textContent = parts.join(" \u00b7 ");
  }

  function render() {
    graph.restyle();
    headerCounts.render();
    panel.render();
    controls.sync();
    ledger.render();
    placeTimelineCursors(document, view.asOfValid);
    markTimelineRows(document, memory, view.asOfRecord);
    statusLine();
  }

  function update(patch) {
    Object.assign(view, patch);
    render();
  }

  let highlighted = null; // the fact a link pointed at: flashed again when the texts redraw the panel

  // An observation is shown where it is listed: in its entity's panel.
  function selectEntity(entity, options) {
    if (entity && entity.observationFact) return selectFact(entity.observationFact);
    graph.batch(() => selectEntityNow(entity, options));
  }

  function selectEntityNow(entity, options) {
    view.selected = entity || null;
    highlighted = null;
    // what is measured, measured before the panel is drawn: after, each read forced a layout of it
    const covered = entity ? coveredRight() : 0;
    if (entity && options && options.focus) graph.focus(entity, covered);
    else if (entity) graph.keepLeftOf(entity, covered);
    else graph.clearSelection();
    render();
    if (entity && options && options.focus) showTab("graph");
    rememberInAddress(entity ? deepLink("entity", entity.id) : "");
  }

  function selectFact(fact) {
    if (!fact) return;
    const look = factAppearance(fact, view);
    if (look.why === "unrecorded") {
      byId("graph-status").textContent = "That fact was not recorded yet at the chosen record time (it was recorded " +
        shortTime(memory.times[fact.recordedAt]) + ").";
      return;
    }
    if (look.why === "superseded") view.showSuperseded = true;
    const owner = fact.subjectEntity || fact.objectEntity;
    if (!owner) {
      byId("graph-status").textContent = "That fact was forgotten together with its entity.";
      return;
    }
    selectEntity(owner, { focus: true });
    panel.highlightFact(fact);
    highlighted = fact;
    rememberInAddress(deepLink("fact", fact.id));
  }

  // On a narrow screen the panel slides over the graph's right side (report.css): how far it reaches.
  // Its width, not its box (while it slides in, its box is still moving), which its content does not
  // change (report.css sets it): read before the panel is drawn, when the page's layout is still clean.
  const detail = byId("detail");
  function coveredRight() {
    return getComputedStyle(detail).position === "absolute" ? detail.offsetWidth : 0;
  }

  const tip = createFactTip(memory, view, byId("graph").parentElement);
  graph = createGraphView(memory, view, byId("graph"), {
    selectEntity: (entity) => selectEntity(entity),
    selectFact,
    changed: () => { panel.render(); statusLine(); },
  }, tip);
  memlens.keys = createGraphKeys(graph, view, byId("graph"), byId("graph-announce"), tip, {
    selectEntity: (entity) => selectEntity(entity),
    focusPanel: () => detail.focus(),
  });
  memlens.network = graph.network;
  timings.graphBuilt = performance.now();
  // After the first draw, the facts' texts; the page is ready once the detail panel can show them.
  graph.network.once("afterDrawing", () => {
    memlens.firstDrawMs = timings.firstDraw = performance.now();
    memory.loadTexts().then(() => {
      timings.textsLoaded = performance.now();
      panel.render();
      if (highlighted) panel.highlightFact(highlighted);
      memlens.ready = true;
    }, (error) => {
      memlens.error = String(error && error.message || error);
      byId("graph-status").textContent = "The facts' descriptions and evidence could not be read (" + memlens.error + ").";
    });
  });

  const headerCounts = createHeaderCounts(memory, view, byId("header-counts"), byId("counts-when"));
  const controls = createControls(memory, view, {
    record: byId("asof-record"), recordValue: byId("asof-record-value"),
    valid: byId("asof-valid"), validValue: byId("asof-valid-value"), validAny: byId("asof-valid-any"),
    recordTicks: byId("asof-record-ticks"), validTicks: byId("asof-valid-ticks"),
    superseded: byId("show-superseded"), archived: byId("hide-archived"), reset: byId("reset-view"),
    chips: [...document.querySelectorAll(".type-chip")], legend: document.querySelector(".legend"), legendMore: byId("legend-more"),
  }, update);

  // a site's graph page has no provenance tab: the ledger has pages of its own there
  const ledger = !byId("panel-provenance") ? { render() {} } : createProvenance(memory, view, {
    panel: byId("panel-provenance"), form: byId("ledger-filters"), actor: byId("ledger-actor"), action: byId("ledger-action"),
    target: byId("ledger-target"), asOf: byId("ledger-asof"), body: byId("ledger-rows"),
    count: byId("ledger-count"), more: byId("ledger-more"),
  });

  if (byId("panel-maintenance")) createMaintenance(memory, byId("panel-maintenance")); // a site: a page of its own
  // back to the moment a brief was given: the graph as the memory was then
  const briefs = !byId("panel-briefs") ? { render() {} } : createBriefs(memory, view, {
    panel: byId("panel-briefs"), body: byId("briefs-rows"), count: byId("briefs-count"), more: byId("briefs-more"),
  }, (at) => { update({ asOfRecord: at, asOfValid: null }); showTab("graph"); });
  for (const button of document.querySelectorAll(".tl-unfold")) button.hidden = false;

  const search = createSearch(memory, view, byId("search-input"), byId("search-results"),
    (hit) => (hit.fact ? selectFact(hit.fact) : selectEntity(hit.entity, { focus: true })));
  memlens.search = search;

  shown = (name) => {
    if (name === "graph") graph.requestRedraw(); // drawn on the next frame, once, with any other change
    if (name === "provenance") ledger.render();
    if (name === "briefs") briefs.render();
  };

  // One delegated handler for every link to an entity or fact (panel, ledger, maintenance).
  document.addEventListener("click", (event) => {
    const target = event.target.closest("[data-ref-kind]");
    if (target) {
      event.preventDefault();
      const id = target.dataset.refId;
      if (target.dataset.refKind === "entity") selectEntity(memory.entityById.get(id), { focus: true });
      else selectFact(memory.factById.get(id));
      return;
    }
    if (event.target.closest("#zoom-in")) graph.zoomIn();
    else if (event.target.closest("#zoom-out")) graph.zoomOut();
    else if (event.target.closest("#zoom-fit")) graph.fitAll();
    if (event.target.closest("#detail-close")) {
      panel.showOverview(false);
      selectEntity(null);
    } else if (event.target.closest("#detail-open")) {
      panel.showOverview(true);
      detail.focus();
    }
    else if (event.target.closest("#detail-expand")) graph.expandAround(view.selected);
    else if (event.target.closest("#detail-show-superseded")) update({ showSuperseded: true });
    else if (event.target.closest("#detail-timeline")) {
      event.preventDefault();
      showTab("timelines");
      const figure = byId("timeline-entity-" + view.selected.id);
      figure.scrollIntoView({ block: "start" });
      unfoldTimeline(figure, view, memory).then(() => figure.scrollIntoView({ block: "start" }));
    }
    const unfold = event.target.closest(".tl-unfold");
    if (unfold) unfoldTimeline(unfold.closest("figure.timeline"), view, memory);
    const row = event.target.closest(".timeline .tl-row[data-fact]");
    if (row) selectFact(memory.factById.get(row.dataset.fact));
  });

  // + and - zoom, 0 shows every node, wherever the focus is but in a field; Escape clears the
  // selection and leaves the focus where it was (on the graph, if it was in the panel it empties).
  const zoomKeys = { "+": () => graph.zoomIn(), "=": () => graph.zoomIn(), "-": () => graph.zoomOut(), "0": () => graph.fitAll() };
  document.addEventListener("keydown", (event) => {
    const typing = /^(INPUT|SELECT|TEXTAREA)$/.test(event.target.tagName);
    if (event.key === "Escape" && !typing && panel.isOpen()) {
      const inPanel = detail.contains(document.activeElement);
      panel.showOverview(false);
      selectEntity(null);
      if (inPanel) byId("graph").focus();
    } else if (!typing && !event.ctrlKey && !event.metaKey && !event.altKey && zoomKeys[event.key]
               && document.body.classList.contains("on-graph")) {
      event.preventDefault();
      zoomKeys[event.key]();
    } else if (event.key === "/" && !typing) {
      event.preventDefault();
      showTab("graph");
      search.focus();
    }
  });

  window.matchMedia("(prefers-color-scheme: dark)").addEventListener("change", () => graph.applyTheme());

  // Deep links: #entity=<id or name>, #fact=<id>, #panel-<tab>. Read at load and whenever the
  // address changes, so links from the site's other pages (and typed addresses) land in place.
  function followAddress() {
    const link = parseDeepLink(location.hash);
    if (!link) return;
    if (link.kind === "panel") {
      if (isTab(link.value)) showTab(link.value);
      return;
    }
    if (link.kind === "search") {
      showTab("graph");
      search.show(link.value);
      return;
    }
    const found = link.kind === "entity" ? findEntity(memory, link.value) : findFact(memory, link.value);
    if (link.kind === "entity" && found) selectEntity(found, { focus: true });
    else if (found) selectFact(found);
    else byId("graph-status").textContent = "Nothing in this memory matches the link (" + link.kind + " " + clip(link.value, 60) + ").";
  }
  window.addEventListener("hashchange", followAddress);

  memlens.showFactCards = (on) => panel.showCards(on);
  memlens.selectEntityById = (id) => selectEntity(memory.entityById.get(id) || null, { focus: true });
  memlens.view = view;
  memlens.times = memory.times; // what the sliders' stops index: record times, valid times
  memlens.validTimes = memory.validTimes;
  memlens.highlighted = () => graph.highlighted(); // {nodes, edges} drawn bright, or null
  memlens.update = update;
  showTab(tabs.find((tab) => tab.getAttribute("aria-selected") === "true").id.slice(4));
  render();
  const address = parseDeepLink(location.hash);
  if (!(chosen && address && address.kind === "panel")) followAddress();
}

startReport();
