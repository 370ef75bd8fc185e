import DOMPurify from 'dompurify';
import MarkdownIt from 'markdown-it';

// Markdown from an MCP server is untrusted: markdown-it may pass its raw HTML through, so every rendering
// goes through DOMPurify before it reaches `v-html`.
const markdown = new MarkdownIt({ html: true, linkify: true });

const purify = DOMPurify();
// Styles and form controls from a server must not restyle or drive the inspector itself.
const CONFIG = {
  FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select', 'option'],
  FORBID_ATTR: ['style'],
};
// A followed link would replace the panel: links open in a new tab, without access to the panel.
purify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A' && node.hasAttribute('href')) {
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer');
  }
});

/** Markdown rendered to HTML that is safe to insert into the inspector's page. */
export function renderMarkdown(source: string): string {
  return purify.sanitize(markdown.render(source), CONFIG);
}
