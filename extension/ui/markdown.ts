import DOMPurify from 'dompurify';
import MarkdownIt from 'markdown-it';
import { hiddenParts, revealHidden } from './hidden-text';
import { RESOURCE_LINK_ATTRIBUTE } from './markdown-links';

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

/** A URL that names its scheme (`https:`, `mailto:`, `demo:`…); anything else is relative. */
const ABSOLUTE = /^[a-z][a-z0-9+.-]*:/i;
/** Each link whose relative address was taken out, with the resource URI it resolves to (null: none). */
const relativeLinks = new WeakMap<Element, string | null>();
/** The URI of the document being rendered, which its relative links are resolved against. */
let baseUri: string | undefined;

/** A relative address resolved against the document's URI, or null when there is none to resolve by. */
function resolved(href: string): string | null {
  if (baseUri === undefined) return null;
  try {
    return new URL(href, baseUri).href;
  } catch {
    return null;
  }
}

// Rendering must fetch nothing: a server's `![](http://127.0.0.1:…/pixel)`, `<svg><image href>` or
// `<table background>` would tell it (or a LAN address it names) when and from where the text was read.
// Only data: URLs, and same-document `#fragment` references, stay.
purify.addHook('uponSanitizeAttribute', (node, data) => {
  const name = data.attrName;
  const value = data.attrValue.trim();
  if (URL_ATTRIBUTES.has(name)) {
    const element = node.nodeName.toLowerCase();
    if (name === 'href' || name === 'xlink:href') {
      if (value.startsWith('#')) return;
      // A relative link would resolve against the inspector's own page (an extension page, the daemon):
      // it names another resource of the server instead, or nothing.
      if (LINK_ELEMENTS.has(element) && value !== '' && !ABSOLUTE.test(value)) {
        relativeLinks.set(node, resolved(value));
        data.keepAttr = false;
        return;
      }
      if (LINK_ELEMENTS.has(element)) return;
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
  if (relativeLinks.has(node)) {
    const uri = relativeLinks.get(node);
    // Opened in the Resources view by the view that shows it, by click or by keyboard (ContentBlock).
    if (uri) {
      node.setAttribute(RESOURCE_LINK_ATTRIBUTE, uri);
      node.setAttribute('role', 'link');
      node.setAttribute('tabindex', '0');
      node.setAttribute('title', uri);
    }
  }
  const dropped = droppedImages.get(node);
  if (dropped !== undefined && !node.hasAttribute('src')) {
    // The image the server named, said in words: the reader sees what was left out, and nothing loads.
    const alt = node.getAttribute('alt')?.trim();
    const label = alt ? `remote image “${alt}”` : 'remote image';
    node.replaceWith(node.ownerDocument.createTextNode(`[${label}: ${dropped} — not loaded]`));
  }
});

/** Put before the rendering so that the parser keeps the body whatever the source starts with. */
const KEEP_BODY = '<wbr>';

/**
 * Markdown rendered to HTML that is safe to insert into the inspector's page, and that loads nothing.
 * `uri`, the document's own URI, resolves its relative links to resources of the same server, marked
 * with {@link RESOURCE_LINK_ATTRIBUTE} and no `href`; without it they are left as plain text.
 */
export function renderMarkdown(source: string, uri?: string): string {
  baseUri = uri;
  try {
    // A leading <wbr> keeps the body: a `<frameset>` first in the source would otherwise replace it, and
    // the whole document (what it hides included) came out empty.
    const fragment = purify.sanitize(`${KEEP_BODY}${markdown.render(source)}`, {
      ...CONFIG,
      RETURN_DOM_FRAGMENT: true,
    });
    if (!fragment) return '';
    const first = fragment.firstChild;
    if (first?.nodeName.toLowerCase() === 'wbr') first.remove();
    // Marked in the sanitised tree, after the parser has decoded entities (`&#x202E;` too), and written
    // out once, as DOMPurify's string form would be.
    markHidden(fragment);
    const box = fragment.ownerDocument.createElement('div');
    box.append(fragment);
    return box.innerHTML;
  } finally {
    baseUri = undefined;
  }
}

const HTML_NAMESPACE = 'http://www.w3.org/1999/xhtml';
/** Elements whose content the HTML parser reads as text, never as elements. */
const TEXT_ONLY = new Set([
  'title',
  'textarea',
  'style',
  'script',
  'xmp',
  'iframe',
  'noembed',
  'noframes',
  'noscript',
  'plaintext',
]);

/** Attributes shown as text (a tooltip, an image's stand-in, what a reader hears). */
const SHOWN_ATTRIBUTES = ['title', 'alt', 'aria-label'];

/**
 * Marks the hidden characters of every text in `root` as ShownText marks them (`hidden-text.ts`): a
 * `<mark class="hidden-char">` with the code point and name as its title, made here, never from the source.
 * Text in SVG or MathML, where an HTML mark would be parsed back as an element of that namespace, and the
 * attributes shown as text, get the marks' names written in (`[RLO]`) instead. Text the page never shows
 * (a `<title>`, a template's content) is left.
 */
function markHidden(root: DocumentFragment): void {
  const document = root.ownerDocument;
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT | NodeFilter.SHOW_ELEMENT);
  const texts: Text[] = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.nodeType === Node.ELEMENT_NODE) {
      const element = node as Element;
      for (const name of SHOWN_ATTRIBUTES) {
        const value = element.getAttribute(name);
        // DOMPurify has checked the value: what tags spell (`</title>`, `-->`) is not written into it.
        const shown = value === null ? value : revealHidden(value, { spell: false });
        if (shown !== value) element.setAttribute(name, shown!);
      }
      continue;
    }
    const text = node as Text;
    const parent = text.parentElement;
    if (parent && parent.namespaceURI !== HTML_NAMESPACE) {
      const shown = revealHidden(text.data);
      if (shown !== text.data) text.data = shown;
    } else if (!parent || !TEXT_ONLY.has(parent.localName)) {
      // In an HTML element, or at the top of the document.
      texts.push(text);
    }
  }
  for (const text of texts) {
    const parts = hiddenParts(text.data);
    if (!parts) continue;
    const marked = document.createDocumentFragment();
    for (const part of parts) {
      if (typeof part === 'string') {
        marked.append(part);
        continue;
      }
      const mark = document.createElement('mark');
      mark.className = 'hidden-char';
      mark.title = part.title;
      mark.textContent = part.shown;
      marked.append(mark);
      if (part.keep) marked.append(part.raw);
    }
    text.replaceWith(marked);
  }
}
