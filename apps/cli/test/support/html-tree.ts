// A strict little HTML reader for the tests of generated reports: elements with their attributes and
// text, void elements, comments and the doctype. It refuses what a well-formed report never contains (an
// unclosed or mismatched tag, an unquoted attribute, a stray "<"), so a structural slip in the report
// fails the test instead of being repaired as a browser would. Linear scans with indexOf; no regex.

export interface HtmlElement {
  readonly tag: string;
  readonly attrs: ReadonlyMap<string, string>;
  readonly children: (HtmlElement | string)[];
}

const VOID = new Set(["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"]);
// Elements whose content is raw text up to their closing tag.
const RAW = new Set(["style", "script"]);
const NAME_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-:";

function decode(text: string): string {
  return text.replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&quot;", '"').replaceAll("&#39;", "'").replaceAll("&amp;", "&");
}

function fail(html: string, at: number, why: string): never {
  throw new Error(`html: ${why} at offset ${String(at)}: ${JSON.stringify(html.slice(at, at + 60))}`);
}

function readName(html: string, at: number): number {
  let i = at;
  while (i < html.length && NAME_CHARS.includes(html[i] ?? "")) i++;
  return i;
}

function skipSpace(html: string, at: number): number {
  let i = at;
  while (i < html.length && " \n\t\r".includes(html[i] ?? "")) i++;
  return i;
}

/** Parse `html` into its root element (the `<html>` element); throws on anything malformed. */
export function parseHtml(html: string): HtmlElement {
  const root: HtmlElement = { tag: "#document", attrs: new Map(), children: [] };
  const stack: HtmlElement[] = [root];
  let i = 0;
  while (i < html.length) {
    const top = stack[stack.length - 1] ?? root;
    const lt = html.indexOf("<", i);
    const textEnd = lt < 0 ? html.length : lt;
    if (textEnd > i) {
      const text = html.slice(i, textEnd);
      if (text.includes(">")) fail(html, i + text.indexOf(">"), "stray >");
      if (text.trim() !== "") top.children.push(decode(text));
      i = textEnd;
      continue;
    }
    if (html.startsWith("<!--", i)) {
      const end = html.indexOf("-->", i);
      if (end < 0) fail(html, i, "unclosed comment");
      i = end + 3;
      continue;
    }
    if (html.startsWith("<!DOCTYPE html>", i)) {
      if (i !== 0) fail(html, i, "doctype not first");
      i += "<!DOCTYPE html>".length;
      continue;
    }
    if (html.startsWith("</", i)) {
      const nameEnd = readName(html, i + 2);
      const tag = html.slice(i + 2, nameEnd);
      if (html[nameEnd] !== ">") fail(html, i, "bad closing tag");
      if (top.tag !== tag) fail(html, i, `</${tag}> closes <${top.tag}>`);
      stack.pop();
      i = nameEnd + 1;
      continue;
    }
    const nameEnd = readName(html, i + 1);
    const tag = html.slice(i + 1, nameEnd);
    if (tag === "") fail(html, i, "stray <");
    const attrs = new Map<string, string>();
    let j = skipSpace(html, nameEnd);
    let selfClosing = false;
    for (;;) {
      if (html.startsWith("/>", j)) {
        selfClosing = true;
        j += 2;
        break;
      }
      if (html[j] === ">") {
        j += 1;
        break;
      }
      const attrEnd = readName(html, j);
      if (attrEnd === j) fail(html, j, "bad attribute");
      const name = html.slice(j, attrEnd);
      if (attrs.has(name)) fail(html, j, `duplicate attribute ${name}`);
      if (html[attrEnd] !== "=") {
        attrs.set(name, "");
        j = skipSpace(html, attrEnd);
        continue;
      }
      if (html[attrEnd + 1] !== '"') fail(html, attrEnd, "unquoted attribute value");
      const close = html.indexOf('"', attrEnd + 2);
      if (close < 0) fail(html, attrEnd, "unclosed attribute value");
      attrs.set(name, decode(html.slice(attrEnd + 2, close)));
      j = skipSpace(html, close + 1);
    }
    const element: HtmlElement = { tag, attrs, children: [] };
    top.children.push(element);
    i = j;
    if (selfClosing || VOID.has(tag)) continue;
    if (RAW.has(tag)) {
      const end = html.indexOf(`</${tag}>`, i);
      if (end < 0) fail(html, i, `unclosed <${tag}>`);
      element.children.push(html.slice(i, end));
      i = end + tag.length + 3;
      continue;
    }
    stack.push(element);
  }
  if (stack.length !== 1) fail(html, html.length, `unclosed <${stack[stack.length - 1]?.tag ?? "?"}>`);
  const elements = root.children.filter((c): c is HtmlElement => typeof c !== "string");
  if (elements.length !== 1 || elements[0]?.tag !== "html") throw new Error("html: the document is not one <html> element");
  return elements[0];
}

/** Every element under `node` (itself included), depth first. */
export function allElements(node: HtmlElement): HtmlElement[] {
  const out: HtmlElement[] = [node];
  for (const child of node.children) if (typeof child !== "string") out.push(...allElements(child));
  return out;
}

/** The text under `node`, pieces joined by spaces. */
export function textOf(node: HtmlElement): string {
  return node.children.map((c) => (typeof c === "string" ? c : textOf(c))).join(" ");
}

/** Elements under `node` with this tag and, when given, this class among their classes. */
export function select(node: HtmlElement, tag: string, className?: string): HtmlElement[] {
  return allElements(node).filter((e) => e.tag === tag && (className === undefined || (e.attrs.get("class") ?? "").split(" ").includes(className)));
}
