// The vis-network drawing. Positions come from the build (no physics). Only a bounded set of
// entities is in the DataSets at once; search and expansion add more. Every state change goes
// through restyle(), which recomputes each drawn item's look and updates only what changed.
const EXPAND_LIMIT = 400;
const EDGE_LABEL_LIMIT = 400;

function themeColors() {
  const css = getComputedStyle(document.documentElement);
  const read = (name) => css.getPropertyValue(name).trim();
  return { text: read("--text"), background: read("--graph-bg"), edge: read("--edge"),
           retired: read("--edge-retired"), contested: read("--contested"), accent: read("--accent") };
}

function createGraphView(memory, view, container, events) {
  const nodes = new vis.DataSet();
  const edges = new vis.DataSet();
  const drawnEntities = new Set();
  const drawnFacts = new Set();
  const lastStyle = new Map();
  let theme;
  let focusSet = null; // entities kept bright around the selection

  function edgeCurves(factsToAdd) {
    // Parallel facts between the same two entities get increasingly curved so each stays visible.
    const seen = new Map();
    for (const fact of factsToAdd) {
      const a = fact.subjectEntity.index, b = fact.objectEntity.index;
      const key = a < b ? a + ":" + b : b + ":" + a;
      const count = seen.get(key) || 0;
      seen.set(key, count + 1);
      fact.curve = count;
    }
  }

  // New items go in fully styled, so vis lays each one out once instead of add-then-update.
  function addEntities(list) {
    const fresh = list.filter((e) => !drawnEntities.has(e.index));
    if (!fresh.length) return 0;
    for (const entity of fresh) drawnEntities.add(entity.index);
    const newFacts = [];
    for (const entity of fresh) {
      for (const fact of entity.facts) {
        if (drawnFacts.has(fact.index) || !fact.subjectEntity || !fact.objectEntity) continue;
        if (!drawnEntities.has(fact.subjectEntity.index) || !drawnEntities.has(fact.objectEntity.index)) continue;
        drawnFacts.add(fact.index);
        newFacts.push(fact);
      }
    }
    edgeCurves([...drawnFacts].map((i) => memory.facts[i]));
    focusSet = focusAround(view.selected);
    const showLabels = drawnFacts.size <= EDGE_LABEL_LIMIT;
    nodes.add(fresh.map((entity) => remember({ ...nodeStyle(entity), label: clip(entity.name, 40), x: entity.x, y: entity.y,
                                                value: Math.max(1, entity.degree) }, nodeStyle(entity))));
    edges.add(newFacts.map((fact) => remember({ ...edgeStyle(fact, showLabels), from: fact.subjectEntity.id,
                                                 to: fact.objectEntity.id }, edgeStyle(fact, showLabels))));
    return fresh.length;
  }

  function remember(item, style) {
    lastStyle.set(style.id, JSON.stringify(style));
    return item;
  }

  function focusAround(selected) {
    if (!selected) return null;
    const around = new Set([selected]);
    for (const fact of selected.facts) {
      if (!factAppearance(fact, view).shown) continue;
      if (fact.subjectEntity) around.add(fact.subjectEntity);
      if (fact.objectEntity) around.add(fact.objectEntity);
    }
    return around;
  }

  function entityShown(entity) {
    return entityExistsAt(entity, view.asOfRecord) && !view.hiddenTypes.has(entity.typeName);
  }

  function nodeStyle(entity) {
    const shown = entityShown(entity);
    const dim = focusSet !== null && !focusSet.has(entity);
    const selected = view.selected === entity;
    return {
      id: entity.id, hidden: !shown, opacity: dim ? 0.16 : 1,
      borderWidth: selected ? 4 : 1.5,
      color: { background: entity.color, border: selected ? theme.accent : entity.color,
               highlight: { background: entity.color, border: theme.accent },
               hover: { background: entity.color, border: theme.text } },
      font: { color: dim ? "rgba(128,128,128,0.35)" : theme.text, strokeColor: theme.background },
    };
  }

  function edgeStyle(fact, showLabels) {
    const look = factAppearance(fact, view);
    const endsShown = entityShown(fact.subjectEntity) && entityShown(fact.objectEntity);
    const hidden = !look.shown || !endsShown;
    const dim = focusSet !== null && !(view.selected && (fact.subjectEntity === view.selected || fact.objectEntity === view.selected));
    const color = look.retired ? theme.retired : look.contested ? theme.contested : theme.edge;
    const label = showLabels ? clip(fact.relationName, 32) + (look.contested ? "  \u26a0 contested" : "") : undefined;
    return {
      id: fact.id, hidden, label: label || "",
      dashes: look.retired ? [5, 5] : false,
      width: look.contested ? 2.6 : look.retired ? 1 : 1.4,
      color: { color, highlight: theme.accent, hover: color, opacity: dim ? 0.12 : look.retired ? 0.75 : 0.9 },
      font: { color: dim ? "rgba(128,128,128,0.25)" : look.contested ? theme.contested : theme.text,
              strokeColor: dim ? "rgba(0,0,0,0)" : theme.background,
              size: 12, strokeWidth: 4, align: "middle" },
      smooth: fact.curve ? { enabled: true, type: fact.curve % 2 ? "curvedCW" : "curvedCCW",
                             roundness: 0.18 * Math.ceil(fact.curve / 2) } : { enabled: false },
    };
  }

  function changed(item) {
    const key = JSON.stringify(item);
    if (lastStyle.get(item.id) === key) return false;
    lastStyle.set(item.id, key);
    return true;
  }

  function restyle() {
    focusSet = focusAround(view.selected);
    const showLabels = drawnFacts.size <= EDGE_LABEL_LIMIT;
    const nodeUpdates = [];
    for (const index of drawnEntities) {
      const style = nodeStyle(memory.entities[index]);
      if (changed(style)) nodeUpdates.push(style);
    }
    const edgeUpdates = [];
    for (const index of drawnFacts) {
      const style = edgeStyle(memory.facts[index], showLabels);
      if (changed(style)) edgeUpdates.push(style);
    }
    if (nodeUpdates.length) nodes.update(nodeUpdates);
    if (edgeUpdates.length) edges.update(edgeUpdates);
  }

  theme = themeColors();
  addEntities(memory.overview);
  const network = new vis.Network(container, { nodes, edges }, {
    autoResize: true,
    physics: { enabled: false },
    layout: { improvedLayout: false, randomSeed: 1 },
    interaction: { hover: true, selectConnectedEdges: false, keyboard: { enabled: true, bindToWindow: false }, multiselect: false,
                   hideEdgesOnDrag: memory.entities.length > 2000, tooltipDelay: 150, navigationButtons: false },
    // Labels appear only once they would be legible: a zoomed-out overview shows shape, not text.
    nodes: { shape: "dot", scaling: { min: 8, max: 24, label: { enabled: true, min: 15, max: 20, drawThreshold: 7 } },
             font: { face: "system-ui, -apple-system, Segoe UI, sans-serif", size: 15, strokeWidth: 4 } },
    edges: { arrows: { to: { enabled: true, scaleFactor: 0.45 } }, selectionWidth: 1.5, hoverWidth: 0.5,
             scaling: { label: { enabled: false, drawThreshold: 8 } } },
  });
  network.fit({ animation: false }); // without physics vis does not fit on its own

  network.on("click", (params) => {
    if (params.nodes.length) events.selectEntity(memory.entityById.get(params.nodes[0]));
    else if (params.edges.length) events.selectFact(memory.factById.get(params.edges[0]));
    else events.selectEntity(null);
  });
  network.on("doubleClick", (params) => {
    if (params.nodes.length) expandAround(memory.entityById.get(params.nodes[0]));
  });
  network.on("hoverNode", () => { container.classList.add("is-pointing"); });
  network.on("blurNode", () => { container.classList.remove("is-pointing"); });

  function reveal(entity) {
    const added = addEntities([entity]);
    if (added) restyle();
    return added;
  }

  function expandAround(entity) {
    const hidden = neighboursOf(entity).filter((e) => !drawnEntities.has(e.index));
    hidden.sort((a, b) => b.degree - a.degree);
    const added = addEntities(hidden.slice(0, EXPAND_LIMIT));
    restyle();
    events.changed();
    return added;
  }

  function focus(entity) {
    if (!drawnEntities.has(entity.index)) reveal(entity);
    network.selectNodes([entity.id], false);
    network.focus(entity.id, { scale: Math.max(network.getScale(), 1.1),
                               animation: { duration: 350, easingFunction: "easeInOutQuad" } });
  }

  function hiddenNeighbours(entity) {
    return neighboursOf(entity).filter((e) => !drawnEntities.has(e.index)).length;
  }

  function counts() {
    let shown = 0, unrecorded = 0, filtered = 0;
    for (const index of drawnEntities) {
      const entity = memory.entities[index];
      if (view.asOfRecord === null && entity.mergedInto !== -1) continue; // merged: only drawn in the past
      if (!entityExistsAt(entity, view.asOfRecord)) unrecorded++;
      else if (view.hiddenTypes.has(entity.typeName)) filtered++;
      else shown++;
    }
    const live = memory.entities.filter((e) => e.mergedInto === -1).length;
    return { shown, unrecorded, filtered, drawn: drawnEntities.size, notDrawn: Math.max(0, memory.entities.length - drawnEntities.size), live };
  }

  function applyTheme() {
    theme = themeColors();
    lastStyle.clear();
    restyle();
  }

  return { network, restyle, reveal, expandAround, focus, hiddenNeighbours, counts, applyTheme,
           isDrawn: (entity) => drawnEntities.has(entity.index),
           clearSelection: () => network.unselectAll() };
}
