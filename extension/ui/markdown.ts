import DOMPurify from 'dompurify';
import MarkdownIt from 'markdown-it';

// Markdown from an MCP server is untrusted: markdown-it may pass its raw HTML through, so every rendering
// goes through DOMPurify before it reaches `v-html`.
const markdown = new MarkdownIt({ html: true, linkify: true });

const purify = DOMPurify();
const CONFIG = {
  // Styles, ids and form controls from a server must not restyle, clobber or drive the inspector itself.
  // Media elements would fetch (and autoplay) from anywhere the server names, so they go with their content
  // kept; `<img>` stays, as the hooks below leave it.
  FORBID_TAGS: [
    'style',
    'form',
    'input',
    'button',
    'textarea',
    'select',
    'option',
    'video',
    'audio',
    'source',
    'picture',
    'track',
  ],
  FORBID_ATTR: ['style', 'class', 'id'],
  ALLOW_DATA_ATTR: false,
};

/** Attributes that make the browser fetch what they name (or, for `href`, follow it when clicked). */
const URL_ATTRIBUTES = new Set([
  'src',
  'srcset',
  'href',
  'xlink:href',
  'poster',
  'background',
  'action',
  'formaction',
  'data',
]);
/** Elements whose `href` is a link the reader follows by clicking, never a fetch on render. */
const LINK_ELEMENTS = new Set(['a', 'area']);
/** A CSS `url(…)` in an SVG presentation attribute (`fill`, `filter`, `mask`…) that is not a `#fragment`. */
const REMOTE_CSS_URL = /url\s*\(\s*['"]?\s*(?!#)/i;

/** The address of each `<img>` whose source was dropped, for the placeholder that replaces it. */
const droppedImages = new WeakMap<Element, string>();

// Rendering must fetch nothing: a server's `![](http://127.0.0.1:…/pixel)`, `<svg><image href>` or
// `<table background>` would tell it (or a LAN address it names) when and from where the text was read.
// Only data: URLs, and same-document `#fragment` references, stay.
purify.addHook('uponSanitizeAttribute', (node, data) => {
  const name = data.attrName;
  const value = data.attrValue.trim();
  if (URL_ATTRIBUTES.has(name)) {
    const element = node.nodeName.toLowerCase();
    if (name === 'href' || name === 'xlink:href') {
      if (LINK_ELEMENTS.has(element) || value.startsWith('#')) return;
    } else if (name === 'src' && /^data:/i.test(value)) {
      return;
    }
    data.keepAttr = false;
    if (element === 'img' && (name === 'src' || !droppedImages.has(node))) droppedImages.set(node, value);
    return;
  }
  if (REMOTE_CSS_URL.test(value)) data.keepAttr = false;
});

purify.addHook('afterSanitizeAttributes', (node) => {
  const element = node.nodeName.toLowerCase();
  // A followed link would replace the panel: links open in a new tab, without access to the panel.
  if (LINK_ELEMENTS.has(element) && (node.hasAttribute('href') || node.hasAttribute('xlink:href'))) {
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer');
  }
  const dropped = droppedImages.get(node);
  if (dropped !== undefined && !node.hasAttribute('src')) {
    // The image the server named, said in words: the reader sees what was left out, and nothing loads.
    const alt = node.getAttribute('alt')?.trim();
    const label = alt ? `remote image “${alt}”` : 'remote image';
    node.replaceWith(node.ownerDocument.createTextNode(`[${label}: ${dropped} — not loaded]`));
  }
});

/** Markdown rendered to HTML that is safe to insert into the inspector's page, and that loads nothing. */
export function renderMarkdown(source: string): string {
  return purify.sanitize(markdown.render(source), CONFIG);
}
