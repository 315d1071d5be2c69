// Which node labels are drawn at which zoom, so that no two ever overlap. The layout keeps the
// labels of a small graph apart (viewer/model/node_box.py uses the same numbers); in a large one
// they cannot all fit, so the most connected entities keep theirs and the others appear as the
// user zooms in. A label is LABEL_FONT_PX in canvas units, so on screen it grows with the zoom up
// to scale 1 and then holds its size (vis-network's maxVisible) while the nodes move apart: past
// scale 1 two labels that overlap at scale 1 separate at the scale computed here.
const LABEL_FONT_PX = 14;
const LABEL_FACE = "system-ui, -apple-system, Segoe UI, sans-serif";
const LABEL_CHARS = 28;
const LABEL_STROKE_PX = 4;
const LEGIBLE_PX = 8; // smaller labels are not drawn at all
const DOT_MIN = 8, DOT_MAX = 24;

function dotRadius(degree, highestDegree) {
  const high = Math.max(1, highestDegree);
  const share = high === 1 ? 0.5 : (Math.max(1, degree) - 1) / (high - 1);
  return DOT_MIN + share * (DOT_MAX - DOT_MIN);
}

function nodeLabel(entity) {
  return clip(entity.name, LABEL_CHARS);
}

// The smallest zoom at which each entity's label is drawn (0: whenever it is legible). Entities
// are taken most connected first; each label waits until it is clear of every label before it.
function labelScales(entities, highestDegree) {
  const ranked = entities.slice().sort((a, b) => b.degree - a.degree || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const boxes = ranked.map((entity) => {
    const width = labelWidth(entity);
    const top = entity.y + dotRadius(entity.degree, highestDegree) + LABEL_FONT_PX / 2 + 4;
    return { entity, x: entity.x, y: top + LABEL_FONT_PX / 2, w: width, h: LABEL_FONT_PX + LABEL_STROKE_PX };
  });
  // pairs that overlap at scale 1 are the only ones that can: found through a grid of cells as
  // large as the widest label, so 1,500 labels cost a few thousand comparisons, not a million
  let cell = 1;
  for (const box of boxes) cell = Math.max(cell, box.w);
  const grid = new Map();
  const scales = new Map();
  for (const box of boxes) {
    const cx = Math.floor(box.x / cell), cy = Math.floor(box.y / cell);
    let scale = 0;
    for (let gx = cx - 1; gx <= cx + 1; gx++) {
      for (let gy = cy - 1; gy <= cy + 1; gy++) {
        for (const other of grid.get(gx + ":" + gy) || []) scale = Math.max(scale, separationScale(box, other));
      }
    }
    scales.set(box.entity, scale);
    const key = cx + ":" + cy;
    if (!grid.has(key)) grid.set(key, []);
    grid.get(key).push(box);
  }
  return scales;
}

// A label's width, measured once per entity: every entity revealed (a search, an expansion) ranks
// all drawn labels again, and measuring the 1,500 drawn names again was most of that (a search on
// the hubs shape: labelScales 4.5 -> 1.0 ms in a CPU profile).
const labelWidths = new Map();
let measuring = null;
function labelWidth(entity) {
  let width = labelWidths.get(entity);
  if (width === undefined) {
    if (!measuring) {
      measuring = document.createElement("canvas").getContext("2d");
      measuring.font = LABEL_FONT_PX + "px " + LABEL_FACE;
    }
    width = measuring.measureText(nodeLabel(entity)).width + LABEL_STROKE_PX;
    labelWidths.set(entity, width);
  }
  return width;
}

// The zoom from which two labels no longer overlap; 0 if they never do. Past scale 1 a label's
// box shrinks in canvas units as 1/scale, so the pair separates once one gap is wide enough.
function separationScale(a, b) {
  const dx = Math.abs(a.x - b.x), dy = Math.abs(a.y - b.y);
  const needX = (a.w + b.w) / 2, needY = (a.h + b.h) / 2;
  if (dx >= needX || dy >= needY) return 0;
  return Math.min(dx > 0 ? needX / dx : Infinity, dy > 0 ? needY / dy : Infinity);
}
