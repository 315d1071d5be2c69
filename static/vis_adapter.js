// vis-network behind one door: its DataSets, its Network and the few internals the page leans on
// (holding redraws, drawing chosen items again over the veil, skipping arrow heads too small to
// see) are used here and nowhere else. Internals change between releases, so the adapter is built
// for one build and refuses another; viewer/report/assets.py reads VIS_VERSION from this file, takes
// vis-network from the pyvis folder of that version and stamps the version its header names.
const VIS_VERSION = "9.1.2";
const ARROW_MIN_PX = 2; // an arrow head shorter than this on screen is a smudge, not a direction

// Why this page's vis-network cannot be driven, or null when it can.
function visMismatch() {
  if (typeof vis === "undefined" || !vis.Network || !vis.DataSet) return "vis-network did not load";
  if (vis.version !== VIS_VERSION) {
    return "this page drives vis-network " + VIS_VERSION + " but carries " + (vis.version ? vis.version : "an unstamped build");
  }
  return null;
}

// The internals used below, as the built-for version has them; a missing one names itself.
function missingInternals(network) {
  const body = network.body || {};
  const checks = {
    "body.emitter": body.emitter && typeof body.emitter.emit === "function",
    "body.nodes": body.nodes && typeof body.nodes === "object",
    "body.edges": body.edges && typeof body.edges === "object",
    "body.edgeIndices": Array.isArray(body.edgeIndices),
    "renderer._drawArrows": network.renderer && typeof network.renderer._drawArrows === "function",
    "renderer._drawEdges": network.renderer && typeof network.renderer._drawEdges === "function",
    "renderer._drawNodes": network.renderer && typeof network.renderer._drawNodes === "function",
    "body.nodeIndices": Array.isArray(body.nodeIndices),
    "body.view.scale": body.view && typeof body.view.scale === "number",
    "renderer.redrawRequested": network.renderer && typeof network.renderer.redrawRequested === "boolean",
    "selectionHandler.hoverObject": network.selectionHandler && typeof network.selectionHandler.hoverObject === "function",
  };
  return Object.keys(checks).filter((name) => !checks[name]);
}

// `container` shows the refusal as text when vis cannot be driven, and the error is thrown.
function createVisAdapter(container) {
  const problem = visMismatch();
  if (problem) {
    container.textContent = "The graph cannot be drawn: " + problem + ".";
    throw new Error(problem);
  }
  const nodes = new vis.DataSet();
  const edges = new vis.DataSet();
  let network = null;

  // Without physics vis redraws the whole canvas synchronously on every DataSet change (and on
  // selectNodes); held, it draws once when released. Every DataSet call also walks all of vis's
  // nodes and edges (clusters, edge ends, visible lists, value ranges: 7-22 ms a call at 1,500
  // nodes, hubs shape), so while held those walks wait and run once on release (an as-of change
  // made four DataSet calls). When no call changed what is drawn (vis says "_dataUpdated" then,
  // never "_dataChanged": no item added, removed, shown, hidden or moved to other ends) the walks
  // would find what they found before, and the redraw on release is all it takes (a selection's
  // new border, 15 ms of walks on the long-texts shape).
  let held = false;
  let drawnChanged = false; // a held call changed what is drawn
  let emitNow = null;
  function holdRedraws() {
    held = true;
    emitNow("_blockRedraw");
  }
  // vis forgets, when redraws are allowed again, a frame it had already asked for, and asks for
  // another on the next request: two whole draws in one frame. A click on a node did that on every
  // selection (vis asks for a frame when it selects, before the page's batch). Redraws are held only
  // within one task, so a frame asked for before the hold has not run yet and is kept as the one.
  function releaseRedraws() {
    held = false;
    if (drawnChanged) emitNow("_dataChanged"); // which goes on to "_dataUpdated"
    drawnChanged = false;
    const asked = network.renderer.redrawRequested;
    emitNow("_allowRedraw");
    network.renderer.redrawRequested = asked;
  }
  function deferWalks(emitter) {
    emitNow = emitter.emit.bind(emitter);
    emitter.emit = (name, ...rest) => {
      if (!held || (name !== "_dataChanged" && name !== "_dataUpdated")) return emitNow(name, ...rest);
      if (name === "_dataChanged") drawnChanged = true;
      return emitter;
    };
  }

  // Arrow heads are vis's costliest part of a frame: per edge a border search and a filled path
  // (414 of 1,016 ms of vis drawing in a profile of hub selections, the lines 105 ms). Zoomed out
  // past where an edge's head is ARROW_MIN_PX long it is skipped.
  let arrowScale = 0; // the edges' arrow scaleFactor; 0: no arrows
  // vis's head is 15 * scaleFactor + 3 * the edge's width long, in canvas units
  const arrowLegible = (edge) => (15 * arrowScale + 3 * edge.options.width) * network.body.view.scale >= ARROW_MIN_PX;
  const drawArrow = (ctx, edge) => { if (edge.connected && arrowLegible(edge)) edge.drawArrows(ctx); };

  // The items drawAgain puts over the veil are left out of vis's own passes: under the veil they
  // were drawn for nothing (hubs shape, its largest entity selected: vis's edge pass 6.5 -> 3.8 ms a
  // frame in a CPU profile; leaving the nodes out too, a whole frame 19-22 -> 16-17 ms).
  let drawnOver = new Set(), nodesOver = new Set();

  function start(options) {
    network = new vis.Network(container, { nodes, edges }, options);
    const missing = missingInternals(network);
    if (missing.length) {
      const message = "vis-network " + VIS_VERSION + " lacks " + missing.join(", ");
      container.textContent = "The graph cannot be drawn: " + message + ".";
      throw new Error(message);
    }
    deferWalks(network.body.emitter);
    const to = options.edges && options.edges.arrows && options.edges.arrows.to;
    arrowScale = to && to.enabled ? to.scaleFactor || 1 : 0;
    const drawNodes = network.renderer._drawNodes.bind(network.renderer);
    network.renderer._drawNodes = (ctx, ...rest) => {
      if (!nodesOver.size) return drawNodes(ctx, ...rest);
      const body = network.body, all = body.nodeIndices;
      body.nodeIndices = all.filter((id) => !nodesOver.has(id));
      try {
        return drawNodes(ctx, ...rest);
      } finally {
        body.nodeIndices = all;
      }
    };
    network.renderer._drawEdges = (ctx) => {
      const { edges: drawn, edgeIndices } = network.body; // vis replaces the index list on data changes
      for (const id of edgeIndices) if (drawn[id].connected && !drawnOver.has(id)) drawn[id].draw(ctx);
    };
    network.renderer._drawArrows = (ctx) => {
      if (!arrowScale) return;
      const { edges: drawn, edgeIndices } = network.body;
      for (const id of edgeIndices) if (!drawnOver.has(id)) drawArrow(ctx, drawn[id]);
    };
    return network;
  }

  // Draws the given nodes and edges again, over whatever was drawn (the selection's
  // neighbourhood above the veil): edges, their arrows, then the nodes, as vis orders its own
  // frame (the page draws the labels: canvas_labels.js). Hidden items, and edges whose ends are hidden, are left out; so are edges
  // whose box lies off screen. The items are those last named by drawOver().
  function drawAgain(ctx) {
    const { nodes: drawnNodes, edges: drawnEdges } = network.body;
    const visible = (node) => node && node.options.hidden !== true;
    const seen = viewBox();
    const onScreen = (edge) => {
      const bend = edge.options.smooth && edge.options.smooth.enabled ? 0.5 * Math.hypot(edge.to.x - edge.from.x, edge.to.y - edge.from.y) : 0;
      return Math.max(edge.from.x, edge.to.x) + bend >= seen.left && Math.min(edge.from.x, edge.to.x) - bend <= seen.right &&
             Math.max(edge.from.y, edge.to.y) + bend >= seen.top && Math.min(edge.from.y, edge.to.y) - bend <= seen.bottom;
    };
    const lines = [];
    for (const id of drawnOver) {
      const edge = drawnEdges[id];
      if (edge && edge.connected && edge.options.hidden !== true && visible(edge.from) && visible(edge.to) && onScreen(edge)) lines.push(edge);
    }
    for (const edge of lines) edge.draw(ctx);
    if (arrowScale) for (const edge of lines) drawArrow(ctx, edge);
    for (const id of nodesOver) if (visible(drawnNodes[id])) drawnNodes[id].draw(ctx);
  }

  // The part of the canvas on screen, in canvas units.
  function viewBox() {
    const topLeft = network.DOMtoCanvas({ x: 0, y: 0 });
    const bottomRight = network.DOMtoCanvas({ x: container.clientWidth, y: container.clientHeight });
    return { left: topLeft.x, top: topLeft.y, right: bottomRight.x, bottom: bottomRight.y };
  }

  return {
    get network() { return network; },
    start,
    add(newNodes, newEdges) {
      if (newNodes.length) nodes.add(newNodes);
      if (newEdges.length) edges.add(newEdges);
    },
    update(nodeUpdates, edgeUpdates) {
      if (nodeUpdates.length) nodes.update(nodeUpdates);
      if (edgeUpdates.length) edges.update(edgeUpdates);
    },
    removeEdges(ids) {
      if (ids.length) edges.remove(ids);
    },
    holdRedraws,
    releaseRedraws,
    requestRedraw: () => emitNow("_requestRedraw"),
    drawAgain,
    drawOver(nodeIds, edgeIds) {
      nodesOver = new Set(nodeIds);
      drawnOver = new Set(edgeIds);
    },
    // vis follows hovering only while the pointer moves over the canvas: one that leaves it for
    // the panel (its close button, say) left the node under it ringed. Hovering nothing blurs it.
    endHover(event) {
      network.selectionHandler.hoverObject(event, { x: -1e6, y: -1e6 });
      emitNow("_requestRedraw");
    },
    // vis's public API, by the names the page uses
    on: (event, handler) => network.on(event, handler),
    scale: () => network.getScale(),
    centre: () => network.getViewPosition(),
    moveTo: (options) => network.moveTo(options),
    focus: (id, options) => network.focus(id, options),
    select: (id) => network.selectNodes([id], false),
    unselectAll: () => network.unselectAll(),
    positionOnScreen: (id) => network.canvasToDOM(network.getPosition(id)),
  };
}
