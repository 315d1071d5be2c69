// The graph's text, drawn by the page over vis-network's canvas in screen pixels: node names and
// relation names. vis-network 9.1.2 sizes labels in canvas units and hides them by thresholds that
// do not hold once its label scaling is off (past a zoom of about 1.75 every name went), so it
// draws none and this layer draws them all, each frame, at a size on screen the page chooses.
// Labels are placed in the order they are offered; one that would overlap a label placed before it
// gives way (so the first offered is always drawn). Relation names also keep off the dots, and off
// the names reserved for later that they are asked to spare.
const EDGE_LABEL_PX = 11;      // relation names, at least 10 px on screen
const OWN_EDGE_LABEL_PX = 12;  // the selected entity's relation names, at least 11 px
const EDGE_LABEL_CHARS = 32;
const LABEL_GAP_PX = 3;        // between a dot and its name
const GRID_CELL_PX = 64;

// An oriented box (centre, half sizes, direction) in screen px: the part of the screen a label takes.
function orientedBox(cx, cy, halfWidth, halfHeight, angle) {
  const cos = Math.cos(angle), sin = Math.sin(angle);
  return { cx, cy, hw: halfWidth, hh: halfHeight, cos, sin,
           ex: halfWidth * Math.abs(cos) + halfHeight * Math.abs(sin),
           ey: halfWidth * Math.abs(sin) + halfHeight * Math.abs(cos) };
}

// Whether two oriented boxes overlap (separating axes: a gap along one of their four sides' normals).
function boxesOverlap(a, b) {
  if (Math.abs(a.cx - b.cx) >= a.ex + b.ex || Math.abs(a.cy - b.cy) >= a.ey + b.ey) return false;
  const axes = [[a.cos, a.sin], [-a.sin, a.cos], [b.cos, b.sin], [-b.sin, b.cos]];
  for (const [ux, uy] of axes) {
    const distance = Math.abs((b.cx - a.cx) * ux + (b.cy - a.cy) * uy);
    const reachA = a.hw * Math.abs(a.cos * ux + a.sin * uy) + a.hh * Math.abs(-a.sin * ux + a.cos * uy);
    const reachB = b.hw * Math.abs(b.cos * ux + b.sin * uy) + b.hh * Math.abs(-b.sin * ux + b.cos * uy);
    if (distance >= reachA + reachB) return false;
  }
  return true;
}

// A reading direction that is never upside down: within a quarter turn of horizontal.
function uprightAngle(dx, dy) {
  let angle = Math.atan2(dy, dx);
  if (angle > Math.PI / 2) angle -= Math.PI;
  else if (angle < -Math.PI / 2) angle += Math.PI;
  return angle;
}

// One frame's labels: `network` is vis's, read for the zoom and the pan.
function beginLabelFrame(network, ctx) {
  const { scale, translation } = network.body.view;
  const width = ctx.canvas.clientWidth, height = ctx.canvas.clientHeight;
  const pixelRatio = width ? ctx.canvas.width / width : 1;
  const grid = new Map();   // what is placed (and the dots): cell -> boxes
  const spare = new Map();  // names to be placed later, which a relation name leaves room for if it can
  const placed = { under: [], over: [] };
  const toScreen = (point) => ({ x: point.x * scale + translation.x, y: point.y * scale + translation.y });

  function cellsOf(box, visit) {
    const x0 = Math.floor((box.cx - box.ex) / GRID_CELL_PX), x1 = Math.floor((box.cx + box.ex) / GRID_CELL_PX);
    const y0 = Math.floor((box.cy - box.ey) / GRID_CELL_PX), y1 = Math.floor((box.cy + box.ey) / GRID_CELL_PX);
    for (let x = x0; x <= x1; x++) for (let y = y0; y <= y1; y++) visit(x * 65536 + y); // a number: no string per cell
  }
  // Whether `box` overlaps none of `boxes` that `blocks` says stand in its way.
  function clear(box, blocks, boxes = grid) {
    let free = true;
    cellsOf(box, (key) => {
      if (!free) return;
      for (const other of boxes.get(key) || []) {
        if (blocks(other) && boxesOverlap(box, other)) { free = false; return; }
      }
    });
    return free;
  }
  function take(box, boxes = grid) {
    cellsOf(box, (key) => {
      if (!boxes.has(key)) boxes.set(key, []);
      boxes.get(key).push(box);
    });
  }
  const everything = () => true;
  const onScreen = (box) => box.cx + box.ex > 0 && box.cx - box.ex < width && box.cy + box.ey > 0 && box.cy - box.ey < height;

  // A dot relation names keep off.
  function dot(node) {
    const at = toScreen(node), radius = node.options.size * scale;
    const box = orientedBox(at.x, at.y, radius, radius, 0);
    if (!onScreen(box)) return;
    box.dot = true;
    take(box);
  }

  // Where a node's name goes, under its dot; null when that is off screen.
  function nameBox(node, text) {
    const px = labelPx(scale), at = toScreen(node);
    if (at.x < -width || at.x > 2 * width || at.y < -height || at.y > 2 * height) return null; // far off screen
    const halfWidth = (textWidth(text, px) + LABEL_STROKE_PX) / 2, halfHeight = px * 0.6;
    const box = orientedBox(at.x, at.y + node.options.size * scale + LABEL_GAP_PX + halfHeight, halfWidth, halfHeight, 0);
    return onScreen(box) ? box : null;
  }

  // A node's name under its dot; false when it gives way.
  function nodeLabel(node, text, colour, layer) {
    const box = nameBox(node, text);
    if (!box || !clear(box, (other) => !other.dot)) return false;
    take(box);
    placed[layer].push({ box, text, px: labelPx(scale), colour, angle: 0 });
    return true;
  }

  // A name to be placed later, whose room a relation name can be asked to spare (edgeLabel).
  function reserve(node, text) {
    const box = nameBox(node, text);
    if (!box) return;
    box.node = node.id;
    take(box, spare);
  }

  // The length of an edge on screen between its two dots: what can hold its relation name.
  function edgeRoom(edge) {
    const from = toScreen(edge.from), to = toScreen(edge.to);
    return Math.hypot(to.x - from.x, to.y - from.y) - (edge.from.options.size + edge.to.options.size) * scale - 14;
  }

  // A relation name along its edge, where the edge between the two dots is long enough to hold
  // it: at the middle, else a little towards either end. With `spared` (node id -> bool), only
  // where it leaves the reserved names of those nodes their room. True when placed; "spared" when
  // only the spared names stood in its way; false when there is no room.
  function edgeLabel(edge, text, px, colour, layer, spared) {
    const from = toScreen(edge.from), to = toScreen(edge.to);
    const halfWidth = (textWidth(text, px) + LABEL_STROKE_PX) / 2 + 2, halfHeight = px * 0.6;
    const curved = edge.options.smooth && edge.options.smooth.enabled;
    const spots = curved ? [0.5] : [0.5, 0.38, 0.62, 0.28, 0.72];
    const length = Math.hypot(to.x - from.x, to.y - from.y);
    const start = edge.from.options.size * scale + 4, end = length - edge.to.options.size * scale - 10;
    let sparing = false;
    for (const spot of spots) {
      let centre, angle;
      if (curved) {
        const point = (t) => toScreen(edge.edgeType.getPoint(t));
        centre = point(spot);
        const before = point(spot - 0.05), after = point(spot + 0.05);
        angle = uprightAngle(after.x - before.x, after.y - before.y);
        if (end - start < halfWidth * 2.4) break; // a bend shortens what holds it
      } else {
        const along = start + (end - start) * spot;
        if (along - halfWidth < start || along + halfWidth > end) continue;
        centre = { x: from.x + (to.x - from.x) * along / length, y: from.y + (to.y - from.y) * along / length };
        angle = uprightAngle(to.x - from.x, to.y - from.y);
      }
      const box = orientedBox(centre.x, centre.y, halfWidth, halfHeight, angle);
      if (!onScreen(box) || !clear(box, everything)) continue;
      if (spared && !clear(box, (name) => spared(name.node), spare)) {
        sparing = true;
        continue;
      }
      take(box);
      placed[layer].push({ box, text, px, colour, angle });
      return true;
    }
    return sparing ? "spared" : false;
  }

  // Draws the labels placed in `layer` ("under" the selection's veil, or "over" it).
  function draw(ctx, layer, background) {
    const items = placed[layer];
    if (!items.length) return;
    ctx.save();
    ctx.setTransform(pixelRatio, 0, 0, pixelRatio, 0, 0);
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    ctx.lineJoin = "round";
    ctx.strokeStyle = background;
    let font = "";
    for (const item of items) {
      const next = item.px + "px " + LABEL_FACE;
      if (next !== font) ctx.font = font = next;
      ctx.lineWidth = LABEL_STROKE_PX * item.px / LABEL_FONT_PX;
      ctx.fillStyle = item.colour;
      if (item.angle) {
        ctx.save();
        ctx.translate(item.box.cx, item.box.cy);
        ctx.rotate(item.angle);
        ctx.strokeText(item.text, 0, 0);
        ctx.fillText(item.text, 0, 0);
        ctx.restore();
      } else {
        ctx.strokeText(item.text, item.box.cx, item.box.cy);
        ctx.fillText(item.text, item.box.cx, item.box.cy);
      }
    }
    ctx.restore();
  }

  return { dot, nodeLabel, reserve, edgeRoom, edgeLabel, draw };
}
