// DOM building without HTML parsing: every string from the data becomes a text node or an
// attribute value, never markup. Event handlers are attached with addEventListener only.
const SVG_NS = "http://www.w3.org/2000/svg";

function setProps(node, props) {
  if (!props) return node;
  for (const [key, value] of Object.entries(props)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "className") node.setAttribute("class", value);
    else if (key === "text") node.textContent = String(value);
    else if (key === "dataset") Object.assign(node.dataset, value);
    else if (/^on/i.test(key)) throw new Error("inline handlers are not allowed: " + key);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  return node;
}

function appendAll(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function el(tag, props, ...children) {
  return appendAll(setProps(document.createElement(tag), props), children);
}

function svgEl(tag, props, ...children) {
  return appendAll(setProps(document.createElementNS(SVG_NS, tag), props), children);
}

function shortTime(iso) {
  return iso ? String(iso).slice(0, 16).replace("T", " ") : "";
}

// Canvas labels cannot wrap; long names are cut there and shown whole in the panel.
function clip(text, limit) {
  const value = String(text);
  return value.length <= limit ? value : value.slice(0, limit - 1) + "\u2026";
}

function shortId(id) {
  return String(id || "").slice(0, 8);
}

function plural(count, word, many) {
  return count.toLocaleString("en") + " " + (count === 1 ? word : (many || word + "s"));
}

// Only well-formed http(s) URLs become links (the same rule as viewer/model/evidence.py, for the site).
function isWebLink(text) {
  if (typeof text !== "string" || !/^https?:\/\//i.test(text) || /[\s\u0000-\u001f]/.test(text)) return false;
  try {
    const url = new URL(text);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch (_) {
    return false;
  }
}
