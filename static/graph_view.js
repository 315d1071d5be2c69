// The vis-network drawing. Positions come from the build (no physics). Only a bounded set of
// entities is in the DataSets at once; search and expansion add more. Every state change goes
// through restyle(), which works out each drawn item's look (a key of what its style depends on)
// and builds a style only for the items whose look changed.
// Facts retired now (superseded, retracted, forgotten) go into vis only while the view shows them:
// a long functional history is thousands of them between drawn entities, and vis walks every edge
// it holds, hidden or not, on each change. A view change looks at the facts in vis, the current
// ones, and only those retired facts the view could show (retiredCandidates).
// The neighbourhood highlight is not an item style: dimming every other node and edge through the
// DataSets restyled the whole drawing on each selection. A veil over the canvas dims everything
// after vis draws, and the selection's neighbourhood is drawn again on top of it.
const DIM_VEIL = 0.84; // the share of the background laid over what is not highlighted
const EXPAND_LIMIT = 400;
const EDGE_LABEL_LIMIT = 400; // relation names are placed each frame while this few links are drawn
const ZOOM_STEP = 1.4;        // one press of + or -
const ZOOM_MOST = 4;          // closer than this, labels hold their size and nothing more is read
const FIT_MOST = 2;           // a small memory's first view is enlarged up to this, its links long enough to be named
const FIT_MARGIN_PX = 12;
const SHORTEST_RELATION_PX = 16; // no relation name, of one letter at 11 px and its outline, fits a shorter link
const NEVER_DRAWN_PX = 1e9;

function themeColors() {
  const css = getComputedStyle(document.documentElement);
  const read = (name) => css.getPropertyValue(name).trim();
  return { text: read("--text"), muted: read("--muted"), background: read("--graph-bg"), edge: read("--edge"),
           retired: read("--edge-retired"), contested: read("--contested"), accent: read("--accent"), focus: read("--focus") };
}

function createGraphView(memory, view, container, events, tip) {
  const canvas = createVisAdapter(container);
  const drawnEntities = new Set();
  const drawnFacts = new Set();    // every fact between two drawn entities
  const liveFacts = new Set();     // of those, the current ones: always in vis (hidden when not shown)
  const retiredFacts = [];         // the rest: in vis only while shown
  const retiredInVis = new Set();
  const disputedRetired = [];      // retired facts in a contradiction: one may be a candidate, shown
  const drawnFactsOf = new Map();  // entity index -> its drawn facts
  const lastLook = new Map();      // item id -> { key, hidden } as vis was last told
  let theme;

  // Parallel facts between the same two entities get increasingly curved so each stays visible.
  const parallel = new Map();
  function curve(fact) {
    const a = fact.subjectEntity.index, b = fact.objectEntity.index;
    const key = a < b ? a + ":" + b : b + ":" + a;
    const count = parallel.get(key) || 0;
    parallel.set(key, count + 1);
    fact.curve = count;
  }

  // Retired facts by the latest record time they could show at (retired at; -1 sorts as never) and
  // by the latest valid time (valid to; null as open), each newest first, sorted again after adds.
  let byRetired = null, byValidTo = null;
  function retiredCandidates() {
    const out = new Set(retiredInVis);
    for (const fact of disputedRetired) out.add(fact.index);
    if (view.showSuperseded) {
      for (const fact of retiredFacts) out.add(fact.index);
      return out;
    }
    if (view.asOfRecord !== null) {
      byRetired = byRetired || retiredFacts.slice().sort((a, b) => untilRecord(b) - untilRecord(a));
      for (const fact of byRetired) {
        if (untilRecord(fact) <= view.asOfRecord) break;
        out.add(fact.index);
      }
    }
    if (view.asOfValid !== null) {
      byValidTo = byValidTo || retiredFacts.slice().sort((a, b) => compareUntil(b.validTo, a.validTo));
      for (const fact of byValidTo) {
        if (fact.validTo !== null && fact.validTo <= view.asOfValid) break;
        out.add(fact.index);
      }
    }
    return out;
  }
  const untilRecord = (fact) => (fact.retiredAt === -1 ? Infinity : fact.retiredAt);
  const compareUntil = (a, b) => (a === b ? 0 : a === null ? 1 : b === null ? -1 : a < b ? -1 : 1);

  const labelsShown = () => liveFacts.size <= EDGE_LABEL_LIMIT;

  // New items go in fully styled, so vis lays each one out once instead of add-then-update.
  // With `pending`, the new items are handed back for one DataSet call together with restyle's.
  function addEntities(list, pending) {
    const fresh = list.filter((e) => !drawnEntities.has(e.index) && e.observation === null); // listed, never drawn
    if (!fresh.length) return 0;
    for (const entity of fresh) drawnEntities.add(entity.index);
    const newFacts = [], newRetired = [];
    for (const entity of fresh) {
      for (const fact of entity.facts) {
        if (drawnFacts.has(fact.index) || !fact.subjectEntity || !fact.objectEntity) continue;
        if (!drawnEntities.has(fact.subjectEntity.index) || !drawnEntities.has(fact.objectEntity.index)) continue;
        drawnFacts.add(fact.index);
        for (const end of new Set([fact.subjectEntity.index, fact.objectEntity.index])) {
          if (!drawnFactsOf.has(end)) drawnFactsOf.set(end, []);
          drawnFactsOf.get(end).push(fact);
        }
        curve(fact);
        if (fact.status === "current") {
          liveFacts.add(fact.index);
          newFacts.push(fact);
        } else {
          retiredFacts.push(fact);
          newRetired.push(fact);
          if (fact.contradictionList.length) disputedRetired.push(fact);
          byRetired = byValidTo = null;
        }
      }
    }
    rerank();
    const newNodes = fresh.map((entity) => {
      const look = remember(entity.id, nodeLook(entity));
      return { ...nodeStyle(entity, look), label: nodeLabel(entity), x: entity.x, y: entity.y,
               title: entity.name.length > LABEL_CHARS ? entity.name : undefined };
    });
    const newEdges = newFacts.map((fact) => edgeStyle(fact, remember(fact.id, edgeLook(fact))));
    for (const fact of newRetired) {
      const look = edgeLook(fact);
      if (look.hidden) continue;
      retiredInVis.add(fact.index);
      newEdges.push(edgeStyle(fact, remember(fact.id, look)));
    }
    if (pending) {
      pending.nodes.push(...newNodes);
      pending.edges.push(...newEdges);
    } else {
      canvas.add(newNodes, newEdges);
    }
    return fresh.length;
  }

  // Dot sizes follow the degree over every entity rather than the drawn ones (vis's `value`
  // scaling rescaled every node on every DataSet change, and revealing a leaf resized the whole
  // drawing); the layout reserved room for them with the same rule (node_labels.js).
  let highestDegree = 0;
  for (const entity of memory.entities) highestDegree = Math.max(highestDegree, entity.degree);
  // The drawn entities, most connected first, then by name: where two labels would overlap, the
  // one later in this order gives way. Ranked again whenever entities are added.
  let ranked = [];
  function rerank() {
    ranked = [...drawnEntities].map((index) => memory.entities[index])
      .sort((a, b) => b.degree - a.degree || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  // An item goes into vis with this look.
  function remember(id, look) {
    lastLook.set(id, { key: look.key, hidden: look.hidden });
    return look;
  }

  // The selection and the ends of its shown facts that are drawn: a hub's other facts lead to
  // entities that are not drawn, so only its drawn facts are looked at.
  function focusAround(selected) {
    if (!selected) return null;
    const around = new Set([selected]);
    for (const fact of drawnFactsOf.get(selected.index) || []) {
      if (hiddenWhy(fact, view) !== null) continue;
      if (fact.subjectEntity) around.add(fact.subjectEntity);
      if (fact.objectEntity) around.add(fact.objectEntity);
    }
    return around;
  }

  function entityShown(entity) {
    return entityExistsAt(entity, view.asOfRecord) && !view.hiddenTypes.has(entity.typeName);
  }

  // What a node's style depends on besides the entity and the theme.
  function nodeLook(entity) {
    const selected = view.selected === entity;
    return { hidden: !entityShown(entity), selected, key: selected ? "selected" : "" };
  }

  // vis keeps the label (a tooltip, a click on it selects) but draws none: canvas_labels.js does.
  function nodeStyle(entity, { hidden, selected }) {
    return {
      id: entity.id, hidden, opacity: 1, size: dotRadius(entity.degree, highestDegree),
      shape: memory.types[entity.type].shape || "dot", // past the palette's colours, the shape tells types apart
      // the outline gives every type's look at least 3:1 against the background, whatever its fill
      borderWidth: selected ? 4 : 1.5,
      color: { background: entity.color, border: selected ? theme.accent : theme.muted,
               highlight: { background: entity.color, border: theme.accent },
               hover: { background: entity.color, border: theme.text } },
    };
  }

  // A fact keeps the ends it had when it was retired: one whose end has since been merged away
  // is drawn (with "Show superseded") to what that end was merged into while the merged entity is
  // not there to draw; at a valid time only its copy there is drawn (timetravel.js whyHidden).
  function drawnEnd(entity) {
    let end = entity;
    for (let hops = 0; hops < 8 && !entityExistsAt(end, view.asOfRecord) && end.mergedInto !== -1; hops++) {
      end = memory.entities[end.mergedInto];
    }
    return end;
  }

  // What an edge's style depends on besides its curve and the theme. The selection leaves edge
  // styles alone: a hub's selection restyled every one of its drawn links for nothing (a DataSet
  // update of every drawn link of the hub, ~20 ms a selection); its relation names are drawn over.
  function edgeLook(fact) {
    const look = factAppearance(fact, view);
    const from = drawnEnd(fact.subjectEntity), to = drawnEnd(fact.objectEntity);
    const endsShown = entityShown(from) && entityShown(to) && drawnEntities.has(from.index) && drawnEntities.has(to.index);
    // a value superseded later that held at the chosen valid time is drawn as what was true then
    const past = Boolean(look.retired && !look.heldThen), contested = Boolean(look.contested);
    return { hidden: !look.shown || !endsShown, from, to, past, contested,
             key: (past ? "p" : "") + (contested ? "c" : "") + from.index + ">" + to.index };
  }

  function edgeStyle(fact, { hidden, from, to, past, contested }) {
    const color = past ? theme.retired : contested ? theme.contested : theme.edge;
    return {
      id: fact.id, from: from.id, to: to.id, hidden,
      dashes: past ? [5, 5] : false,
      width: contested ? 2.6 : past ? 1 : 1.4,
      color: { color, highlight: theme.accent, hover: color, opacity: past ? 0.75 : 0.9 },
      smooth: fact.curve ? { enabled: true, type: fact.curve % 2 ? "curvedCW" : "curvedCCW",
                             roundness: 0.18 * Math.ceil(fact.curve / 2) } : { enabled: false },
    };
  }

  // What vis needs to hear of an item with this look: nothing when vis has it already; only
  // `hidden` when that is all that changed (time travel mostly shows and hides; vis merges every
  // option it is handed, and whole styles for thousands of edges were most of an as-of change);
  // else the style `build` makes, naming `hidden` only if it changed: vis takes an update naming
  // `hidden` for a change of what is drawn and walks every item again (vis_adapter.js), where a new
  // look needs only a redraw. A hidden item keeps the look vis has until it is shown again. Only
  // the looks are compared: every drawn item's style was built and serialised to be compared
  // (restyling for an as-of change, hubs shape: 14-19 -> 5 ms; at 100,000 entities 10-18 -> 3-4 ms).
  function changed(id, look, build) {
    const last = lastLook.get(id);
    if (look.hidden) {
      if (!last || last.hidden) return null;
      last.hidden = true;
      return { id, hidden: true };
    }
    if (last && last.key === look.key) {
      if (!last.hidden) return null;
      last.hidden = false;
      return { id, hidden: false };
    }
    lastLook.set(id, { key: look.key, hidden: false });
    const style = build(look);
    if (last && !last.hidden) delete style.hidden;
    return style;
  }
  const nodeChange = (entity) => changed(entity.id, nodeLook(entity), (look) => nodeStyle(entity, look));
  const edgeChange = (fact) => changed(fact.id, edgeLook(fact), (look) => edgeStyle(fact, look));

  // One selection used to draw five times before returning (a draw per DataSet change and on
  // selectNodes). batch() holds vis's redraws while `fn` runs and asks for a single one on the next
  // animation frame.
  let batchDepth = 0;
  function batch(fn) {
    if (batchDepth++ === 0) canvas.holdRedraws();
    try {
      return fn();
    } finally {
      if (--batchDepth === 0) {
        canvas.releaseRedraws();
        canvas.requestRedraw();
      }
    }
  }

  // What item styles depend on besides the selection. While it stays the same, a new selection
  // only restyles the nodes selected before and now (their border).
  let stylesFor = null;
  let styledSelection = null;
  function restyle(pending) {
    if (batchDepth === 0) return batch(() => restyle(pending));
    const nodeUpdates = pending ? pending.nodes : [];
    const edgeUpdates = pending ? pending.edges : [];
    const edgeAdds = [], edgeRemovals = [];
    const key = [view.asOfRecord, view.asOfValid, view.showSuperseded, view.hideArchived, theme];
    const same = stylesFor !== null && view.hiddenTypes === stylesFor.hiddenTypes && key.every((v, i) => v === stylesFor.key[i]);
    if (same) {
      for (const entity of new Set([styledSelection, view.selected])) {
        if (!entity || !drawnEntities.has(entity.index)) continue;
        const patch = nodeChange(entity);
        if (patch) nodeUpdates.push(patch);
      }
    } else {
      for (const index of drawnEntities) {
        const patch = nodeChange(memory.entities[index]);
        if (patch) nodeUpdates.push(patch);
      }
      for (const index of liveFacts) {
        const patch = edgeChange(memory.facts[index]);
        if (patch) edgeUpdates.push(patch);
      }
      for (const index of retiredCandidates()) {
        const fact = memory.facts[index], look = edgeLook(fact);
        if (!look.hidden && !retiredInVis.has(index)) {
          retiredInVis.add(index);
          edgeAdds.push(edgeStyle(fact, remember(fact.id, look)));
        } else if (look.hidden && retiredInVis.has(index)) {
          retiredInVis.delete(index);
          lastLook.delete(fact.id);
          edgeRemovals.push(fact.id);
        } else if (!look.hidden) {
          const patch = changed(fact.id, look, (shown) => edgeStyle(fact, shown));
          if (patch) edgeUpdates.push(patch);
        }
      }
      stylesFor = { key, hiddenTypes: view.hiddenTypes };
    }
    styledSelection = view.selected;
    canvas.update(nodeUpdates, []);
    canvas.removeEdges(edgeRemovals);
    canvas.add([], edgeAdds);
    canvas.update([], edgeUpdates);
    highlightAround(view.selected);
  }

  // The highlight: the selection, its shown facts that are drawn and the entities at their ends.
  let highlight = null;
  function highlightAround(selected) {
    const previous = highlight;
    highlight = null;
    if (selected && drawnEntities.has(selected.index)) {
      const around = focusAround(selected);
      highlight = { nodes: [...around].filter((e) => drawnEntities.has(e.index)).map((e) => e.id),
                    edges: (drawnFactsOf.get(selected.index) || [])
                      .filter((f) => liveFacts.has(f.index) || retiredInVis.has(f.index)).map((f) => f.id) };
    }
    canvas.drawOver(highlight ? highlight.nodes : [], highlight ? highlight.edges : []);
    if (previous !== null || highlight !== null) canvas.requestRedraw();
  }

  // After vis has drawn the dots and lines: every label, then with a selection the veil, its
  // neighbourhood again, and its labels over the veil. With a selection, its name and its own
  // relation names are placed first: off its neighbourhood's dots, off its neighbours' names where
  // another spot on the link holds them, and never over the name of the entity at the link's other
  // end, which says more than the relation. Then its neighbours' names, then the other names under
  // the veil; other relation names are left out, as the veil would leave them unreadable. Without
  // a selection, the names by rank, then the relation names where there is room.
  function drawOverlay(ctx) {
    const frame = beginLabelFrame(canvas.network, ctx);
    const body = canvas.network.body;
    const shownNode = (id) => {
      const node = body.nodes[id];
      return node && node.options.hidden !== true ? node : null;
    };
    const around = new Set(highlight ? highlight.nodes : []);
    if (highlight) {
      const selected = shownNode(view.selected.id);
      if (selected) frame.nodeLabel(selected, selected.options.label, theme.text, "over");
      const neighbours = [];
      for (const entity of ranked) {
        const node = around.has(entity.id) && entity !== view.selected && shownNode(entity.id);
        if (node) neighbours.push(node);
      }
      for (const id of around) frame.dot(body.nodes[id]);
      for (const node of neighbours) frame.reserve(node, node.options.label);
      // a hub's links are hundreds: those that found no room at all are not tried again
      const crowded = highlight.edges.filter((id) => relationName(frame, body.edges[id], OWN_EDGE_LABEL_PX, "over", () => true) === "spared");
      for (const id of crowded) {
        const edge = body.edges[id];
        const far = edge && (edge.from.id === view.selected.id ? edge.to.id : edge.from.id);
        relationName(frame, edge, OWN_EDGE_LABEL_PX, "over", (node) => node === far);
      }
      for (const node of neighbours) frame.nodeLabel(node, node.options.label, theme.text, "over");
    }
    const relations = labelsShown() && !highlight;
    if (relations) for (const id of body.nodeIndices) frame.dot(body.nodes[id]);
    for (const entity of ranked) {
      const node = !around.has(entity.id) && shownNode(entity.id);
      if (node) frame.nodeLabel(node, node.options.label, theme.text, "under");
    }
    if (relations) for (const id of body.edgeIndices) relationName(frame, body.edges[id], EDGE_LABEL_PX, "under");
    frame.draw(ctx, "under", theme.background);
    if (highlight !== null) {
      ctx.save();
      ctx.setTransform(1, 0, 0, 1, 0, 0);
      ctx.globalAlpha = DIM_VEIL;
      ctx.fillStyle = theme.background;
      ctx.fillRect(0, 0, ctx.canvas.width, ctx.canvas.height);
      ctx.restore();
      canvas.drawAgain(ctx);
      frame.draw(ctx, "over", theme.background);
    }
    ringCursor(ctx);
  }

  // The entity the keyboard is on (graph_keys.js): ringed, over everything, while the graph has
  // the keyboard's focus.
  let cursor = null;
  function ringCursor(ctx) {
    const node = cursor && cursorShown() && canvas.network.body.nodes[cursor.id];
    if (!node || node.options.hidden === true) return;
    const { scale, translation } = canvas.network.body.view;
    const ratio = ctx.canvas.clientWidth ? ctx.canvas.width / ctx.canvas.clientWidth : 1;
    ctx.save();
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.strokeStyle = theme.focus;
    ctx.lineWidth = 2.5;
    ctx.setLineDash([5, 3]);
    ctx.beginPath();
    ctx.arc(node.x * scale + translation.x, node.y * scale + translation.y, node.options.size * scale + 6, 0, 2 * Math.PI);
    ctx.stroke();
    ctx.restore();
  }
  const cursorShown = () => document.activeElement === container;
  container.addEventListener("focus", () => { if (cursor) canvas.requestRedraw(); });
  container.addEventListener("blur", () => { if (cursor) canvas.requestRedraw(); });

  function setCursor(entity) {
    cursor = entity;
    canvas.requestRedraw();
  }

  // Where the arrow keys can go: the selection and its drawn neighbours, or without a selection
  // every entity drawn, best connected first.
  function stepTargets() {
    const shown = (entity) => drawnEntities.has(entity.index) && entityShown(entity);
    if (view.selected && drawnEntities.has(view.selected.index)) return [...focusAround(view.selected)].filter(shown);
    return ranked.filter(shown);
  }

  // The shown facts drawn between the selection and `entity`.
  function factsBetween(selected, entity) {
    return (drawnFactsOf.get(selected.index) || []).filter((fact) =>
      (fact.subjectEntity === entity || fact.objectEntity === entity) && factAppearance(fact, view).shown);
  }

  // Brings `entity` into the view, if it is out of it, without zooming.
  function keepInView(entity) {
    const at = canvas.positionOnScreen(entity.id);
    if (at.x > 24 && at.x < container.clientWidth - 24 && at.y > 24 && at.y < container.clientHeight - 24) return;
    keepFitted = false;
    canvas.moveTo({ position: { x: entity.x, y: entity.y }, animation: { duration: 200, easingFunction: "easeInOutQuad" } });
  }

  // A fact's relation name on its edge, if the edge is drawn and there is room; what edgeLabel
  // says (see `spared` there).
  function relationName(frame, edge, px, layer, spared) {
    if (!edge || !edge.connected || edge.options.hidden === true) return false;
    if (edge.from.options.hidden === true || edge.to.options.hidden === true) return false;
    if (frame.edgeRoom(edge) < SHORTEST_RELATION_PX) return false; // before the fact is looked at: most links, zoomed out
    const fact = memory.factById.get(edge.id);
    const look = factAppearance(fact, view);
    if (!look.shown) return false;
    const past = look.retired && !look.heldThen;
    const text = clip(fact.relationName, EDGE_LABEL_CHARS) + (look.contested ? " \u26a0 contested" : "");
    return frame.edgeLabel(edge, text, px, look.contested ? theme.contested : past ? theme.muted : theme.text, layer, spared);
  }

  theme = themeColors();
  addEntities(memory.overview);
  canvas.start({
    autoResize: true,
    physics: { enabled: false },
    layout: { improvedLayout: false, randomSeed: 1 },
    // vis's keys off, the page has its own (graph_keys.js): vis's arrows moved the view, its + and -
    // did nothing in a page that holds its redraws, and its autoFocus focused the canvas on every
    // mouse move, scrolling the page to show it (the node moved from under the pointer)
    interaction: { hover: true, selectConnectedEdges: false, multiselect: false, keyboard: { enabled: false },
                   hideEdgesOnDrag: memory.entities.length > 2000, tooltipDelay: 150, navigationButtons: false },
    // Labels appear only once they would be legible: a zoomed-out overview shows shape, not text.
    // vis draws no text (canvas_labels.js does): a label's threshold no zoom reaches
    nodes: { shape: "dot", font: { face: LABEL_FACE, size: LABEL_FONT_PX },
             scaling: { label: { enabled: false, drawThreshold: NEVER_DRAWN_PX } } },
    edges: { arrows: { to: { enabled: true, scaleFactor: 0.45 } }, selectionWidth: 1.5, hoverWidth: 0.5 },
  });
  // While the view is the fitted one, it stays fitted as the canvas settles or the window changes
  // (the demo's canvas grows 461 -> 495 px tall after the first fit, and vis rescales the view by
  // the width alone); a zoom, a drag or a focus by the reader ends that. vis restores its own view
  // after saying "resize", so the fit waits for the next frame.
  let keepFitted = true;
  fitAll();
  canvas.on("afterDrawing", drawOverlay);
  canvas.on("animationFinished", () => { zoomingTo = null; });
  canvas.on("resize", () => requestAnimationFrame(() => { if (keepFitted) fitAll(false); }));
  canvas.on("zoom", () => { keepFitted = false; tip.hide(); });
  canvas.on("dragStart", () => { keepFitted = false; tip.hide(); });

  canvas.on("click", (params) => {
    if (params.nodes.length) events.selectEntity(memory.entityById.get(params.nodes[0]));
    else if (params.edges.length) events.selectFact(memory.factById.get(params.edges[0]));
    else events.selectEntity(null);
  });
  canvas.on("doubleClick", (params) => {
    if (params.nodes.length) expandAround(memory.entityById.get(params.nodes[0]));
  });
  // A link under the pointer shows its fact (fact_tip.js).
  canvas.on("hoverEdge", (params) => {
    const fact = memory.factById.get(params.edge);
    if (fact && factAppearance(fact, view).shown) tip.show(fact, params.pointer.DOM.x, params.pointer.DOM.y);
  });
  canvas.on("blurEdge", () => tip.hide());
  canvas.on("hoverNode", () => { container.classList.add("is-pointing"); });
  canvas.on("blurNode", () => { container.classList.remove("is-pointing"); });
  container.addEventListener("mouseleave", (event) => canvas.endHover(event));

  // Every shown node, its dot and its name, inside the canvas, enlarged up to FIT_MOST.
  // Names keep a size on screen whatever the zoom, so the zoom is found by halving: the largest at
  // which the drawing's extent on screen fits the canvas.
  function fitAll(animate) {
    keepFitted = true;
    const items = [];
    for (const index of drawnEntities) {
      const entity = memory.entities[index];
      if (!entityShown(entity)) continue;
      items.push({ x: entity.x, y: entity.y, r: dotRadius(entity.degree, highestDegree), w: textWidth(nodeLabel(entity), 1) });
    }
    if (!items.length) return;
    const width = container.clientWidth - 2 * FIT_MARGIN_PX, height = container.clientHeight - 2 * FIT_MARGIN_PX;
    const extent = (scale) => {
      const px = labelPx(scale);
      let left = Infinity, right = -Infinity, top = Infinity, bottom = -Infinity;
      for (const item of items) {
        const half = Math.max(item.r * scale, (item.w * px + LABEL_STROKE_PX) / 2);
        left = Math.min(left, item.x * scale - half);
        right = Math.max(right, item.x * scale + half);
        top = Math.min(top, (item.y - item.r) * scale);
        bottom = Math.max(bottom, item.y * scale + item.r * scale + LABEL_GAP_PX + px * 1.2);
      }
      return { left, right, top, bottom };
    };
    const fits = (scale) => { const e = extent(scale); return e.right - e.left <= width && e.bottom - e.top <= height; };
    let low = 0.01, high = FIT_MOST;
    if (fits(high)) low = high;
    else for (let step = 0; step < 30; step++) { const middle = (low + high) / 2; if (fits(middle)) low = middle; else high = middle; }
    const e = extent(low);
    const position = { x: (e.left + e.right) / 2 / low, y: (e.top + e.bottom) / 2 / low };
    canvas.moveTo({ scale: low, position, animation: animate ? { duration: 250, easingFunction: "easeInOutQuad" } : false });
  }

  // Zooms by `factor` about the middle of the canvas, up to ZOOM_MOST; a press while the last one
  // is still moving goes on from where that one was going.
  let zoomingTo = null;
  function zoomBy(factor) {
    keepFitted = false;
    const scale = Math.min(ZOOM_MOST, Math.max(0.02, (zoomingTo || canvas.scale()) * factor));
    zoomingTo = scale;
    canvas.moveTo({ scale, position: canvas.centre(), animation: { duration: 180, easingFunction: "easeInOutQuad" } });
  }

  function reveal(entity) {
    return batch(() => {
      const pending = { nodes: [], edges: [] };
      const added = addEntities([entity], pending);
      if (added) restyle(pending);
      return added;
    });
  }

  function expandAround(entity) {
    return batch(() => {
      const hidden = neighboursOf(entity).filter((e) => !drawnEntities.has(e.index));
      hidden.sort((a, b) => b.degree - a.degree);
      const pending = { nodes: [], edges: [] };
      const added = addEntities(hidden.slice(0, EXPAND_LIMIT), pending);
      restyle(pending);
      events.changed();
      return added;
    });
  }

  // `covered`: how many px of the graph's right side the detail panel covers once drawn (a narrow
  // screen); the entity is centred in what is left.
  function focus(entity, covered = 0) {
    keepFitted = false;
    batch(() => {
      if (!drawnEntities.has(entity.index)) reveal(entity);
      canvas.select(entity.id);
    });
    canvas.focus(entity.id, { scale: Math.max(canvas.scale(), 1.1), offset: { x: -covered / 2, y: 0 },
                               animation: { duration: 350, easingFunction: "easeInOutQuad" } });
  }

  // A node clicked under where the panel now lies is moved into the part of the graph left free.
  function keepLeftOf(entity, covered) {
    if (!covered || !drawnEntities.has(entity.index)) return;
    const at = canvas.positionOnScreen(entity.id);
    const room = container.clientWidth - covered;
    if (at.x > 24 && at.x < room - 24) return;
    const centre = canvas.centre(), scale = canvas.scale();
    keepFitted = false;
    canvas.moveTo({ position: { x: centre.x + (at.x - room / 2) / scale, y: centre.y },
                     animation: { duration: 250, easingFunction: "easeInOutQuad" } });
  }

  // Asked on every render of the panel; a hub's neighbours are tens of thousands, so counted once
  // per entity and number of drawn entities.
  let hiddenCount = { entity: null, drawn: -1, count: 0 };
  function hiddenNeighbours(entity) {
    if (hiddenCount.entity !== entity || hiddenCount.drawn !== drawnEntities.size) {
      hiddenCount = { entity, drawn: drawnEntities.size,
                      count: neighboursOf(entity).filter((e) => !drawnEntities.has(e.index)).length };
    }
    return hiddenCount.count;
  }

  // shown + unrecorded + filtered + notDrawn = the memory's entities (merged ones aside): what the
  // status line says adds up to the header's count
  const liveEntities = memory.entities.filter((e) => e.mergedInto === -1 && e.observation === null).length;
  function counts() {
    let shown = 0, unrecorded = 0, filtered = 0, drawnLive = 0;
    for (const index of drawnEntities) {
      const entity = memory.entities[index];
      if (entity.mergedInto === -1) drawnLive++;
      if (view.asOfRecord === null && entity.mergedInto !== -1) continue; // merged: only drawn in the past
      if (!entityExistsAt(entity, view.asOfRecord)) unrecorded++;
      else if (view.hiddenTypes.has(entity.typeName)) filtered++;
      else shown++;
    }
    const live = liveEntities;
    return { shown, unrecorded, filtered, drawn: drawnEntities.size, notDrawn: live - drawnLive, live };
  }

  function applyTheme() {
    theme = themeColors();
    lastLook.clear();
    stylesFor = null;
    restyle();
  }

  return { network: canvas.network, batch, fitAll: () => fitAll(true), zoomIn: () => zoomBy(ZOOM_STEP), zoomOut: () => zoomBy(1 / ZOOM_STEP), requestRedraw: canvas.requestRedraw, restyle, reveal, expandAround, focus, keepLeftOf, hiddenNeighbours, counts, applyTheme,
           isDrawn: (entity) => drawnEntities.has(entity.index), setCursor, stepTargets, factsBetween, keepInView,
           positionOnScreen: (entity) => canvas.positionOnScreen(entity.id),
           rankedFirst: () => ranked.find((entity) => entityShown(entity)) || null,
           highlighted: () => highlight && { nodes: [...highlight.nodes], edges: [...highlight.edges] },
           clearSelection: () => batch(() => canvas.unselectAll()) };
}
