"""What the graph's canvas draws as text, read from the browser: every fillText of one frame, with
its size, place and direction on the page. Tests read the drawing, not how the page decides it."""

from __future__ import annotations

import itertools
import math
from typing import Any

# Records the fillText calls of the graph canvas during one redraw, mapped to page px; `over`: drawn
# after a fill of the whole canvas (the veil a selection lays over the rest).
RECORD_FRAME = """() => new Promise((resolve) => {
  const network = window.memlens.network;
  const canvas = network.body.container.querySelector("canvas");
  const frame = canvas.getBoundingClientRect();
  const proto = CanvasRenderingContext2D.prototype, original = proto.fillText, fillRect = proto.fillRect;
  const drawn = [];
  let veiled = false;
  proto.fillRect = function (x, y, w, h) {
    if (this.canvas === canvas && w >= canvas.width && h >= canvas.height && this.globalAlpha < 1) veiled = true;
    return fillRect.apply(this, arguments);
  };
  proto.fillText = function (text, x, y) {
    if (this.canvas === canvas) {
      const t = this.getTransform(), ratio = canvas.width / canvas.clientWidth, zoom = Math.hypot(t.a, t.b) / ratio;
      const width = this.measureText(text).width * zoom;
      const px = parseFloat(/([0-9.]+)px/.exec(this.font)[1]) * zoom;
      // the anchor on the page, then the box's centre from the text's alignment
      let cx = (t.a * x + t.c * y + t.e) / ratio + frame.left, cy = (t.b * x + t.d * y + t.f) / ratio + frame.top;
      const angle = Math.atan2(t.b, t.a);
      const shift = this.textAlign === "left" || this.textAlign === "start" ? width / 2 : this.textAlign === "right" ? -width / 2 : 0;
      cx += Math.cos(angle) * shift; cy += Math.sin(angle) * shift;
      drawn.push({ text: String(text), px, cx, cy, width, height: px, angle, baseline: this.textBaseline,
                   colour: String(this.fillStyle), alpha: this.globalAlpha, over: veiled });
    }
    return original.apply(this, arguments);
  };
  network.once("afterDrawing", () => { proto.fillText = original; proto.fillRect = fillRect; resolve(drawn); });
  network.redraw();
})"""

# The drawn nodes (not hidden), their labels and their dots on the page.
NODES = """() => {
  const network = window.memlens.network, body = network.body, scale = network.getScale();
  const frame = body.container.getBoundingClientRect();
  return body.nodeIndices.map((id) => body.nodes[id]).filter((n) => n.options.hidden !== true).map((node) => {
    const at = network.canvasToDOM({ x: node.x, y: node.y });
    return { id: node.id, label: node.options.label, x: at.x + frame.left, y: at.y + frame.top, r: node.options.size * scale };
  });
}"""


def corners(text: dict[str, Any]) -> list[tuple[float, float]]:
    cos, sin = math.cos(text["angle"]), math.sin(text["angle"])
    hw, hh = text["width"] / 2, text["height"] / 2
    return [(text["cx"] + dx * cos - dy * sin, text["cy"] + dx * sin + dy * cos)
            for dx, dy in ((-hw, -hh), (hw, -hh), (hw, hh), (-hw, hh))]


def texts_overlap(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Whether the glyph boxes of two drawn texts overlap (separating axes)."""
    pa, pb = corners(a), corners(b)
    for poly in (pa, pb):
        for (x1, y1), (x2, y2) in zip(poly, poly[1:] + poly[:1]):
            nx, ny = y1 - y2, x2 - x1
            sa = [nx * x + ny * y for x, y in pa]
            sb = [nx * x + ny * y for x, y in pb]
            if max(sa) <= min(sb) + 1e-6 or max(sb) <= min(sa) + 1e-6:
                return False
    return True


def overlapping(texts: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(a["text"], b["text"]) for a, b in itertools.combinations(texts, 2) if texts_overlap(a, b)]


def record_frame(page: Any) -> list[dict[str, Any]]:
    return page.evaluate(RECORD_FRAME)


def drawn_nodes(page: Any) -> list[dict[str, Any]]:
    return page.evaluate(NODES)


def settled_scale(page: Any) -> float:
    """The graph's zoom, once it has stopped moving."""
    previous = None
    for _ in range(50):
        now = page.evaluate("() => window.memlens.network.getScale()")
        if now == previous:
            return now
        previous = now
        page.wait_for_timeout(120)
    raise AssertionError("the zoom never settled")
