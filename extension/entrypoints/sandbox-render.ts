/**
 * The script of the widget sandbox page (public/sandbox.html): an opaque origin with no extension APIs.
 * It waits for one render message from the panel that framed it, then replaces its own document with the
 * widget's HTML, so the widget's `window.parent` is the panel. It handles nothing else and imports only
 * the check. An unlisted script, built as a classic script rather than a module: Firefox, which has no
 * sandbox pages, loads the page into a sandboxed frame, and there an opaque origin gets no module from
 * the extension (modules load under CORS), while a classic script loads in both browsers.
 */
import { defineUnlistedScript } from 'wxt/utils/define-unlisted-script';
import { renderHtmlOf } from '../widgets/apps-sdk/widget-host';

export default defineUnlistedScript(() => {
  function render(event: MessageEvent): void {
    const html = renderHtmlOf(event, window.parent, window);
    if (html === null) return;
    window.removeEventListener('message', render);
    // document.open() also drops this page's listeners: the page becomes the widget and nothing else.
    document.open();
    document.write(html);
    document.close();
  }

  window.addEventListener('message', render);
});
