// The numbers a node's label is drawn by. The layout reserves room for a label of LABEL_FONT_PX
// canvas units under each dot (viewer/model/node_box.py uses the same numbers). On screen the page
// draws it at LABEL_FONT_PX * zoom, kept between LABEL_MIN_PX and LABEL_MAX_PX, so a label is
// readable from "fit" to 4x; where labels would then overlap, canvas_labels.js lets the lesser
// ones give way.
const LABEL_FONT_PX = 14;
const LABEL_MIN_PX = 11;
const LABEL_MAX_PX = 18;
const LABEL_FACE = "system-ui, -apple-system, Segoe UI, sans-serif";
const LABEL_CHARS = 28;
const LABEL_STROKE_PX = 4;
const DOT_MIN = 8, DOT_MAX = 24;

function dotRadius(degree, highestDegree) {
  const high = Math.max(1, highestDegree);
  const share = high === 1 ? 0.5 : (Math.max(1, degree) - 1) / (high - 1);
  return DOT_MIN + share * (DOT_MAX - DOT_MIN);
}

function nodeLabel(entity) {
  return clip(entity.name, LABEL_CHARS);
}

// A node label's size on screen at zoom `scale`.
function labelPx(scale) {
  return Math.min(LABEL_MAX_PX, Math.max(LABEL_MIN_PX, LABEL_FONT_PX * scale));
}

// A text's width at `px`, measured once per text at LABEL_FONT_PX and scaled: every frame places
// every drawn label, and measuring the 1,500 drawn names each frame was most of a frame.
const textWidths = new Map();
let measuring = null;
function textWidth(text, px) {
  let width = textWidths.get(text);
  if (width === undefined) {
    if (!measuring) {
      measuring = document.createElement("canvas").getContext("2d");
      measuring.font = LABEL_FONT_PX + "px " + LABEL_FACE;
    }
    width = measuring.measureText(text).width;
    textWidths.set(text, width);
  }
  return width * px / LABEL_FONT_PX;
}
