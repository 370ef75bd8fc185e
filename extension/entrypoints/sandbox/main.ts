/**
 * The widget sandbox (manifest `sandbox.pages`): an opaque origin with no extension APIs. It waits for
 * one render message from the panel that framed it, then replaces its own document with the widget's
 * HTML, so the widget's `window.parent` is the panel. It handles nothing else and imports only the check.
 */
import { renderHtmlOf } from '../../widgets/apps-sdk/widget-host';

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
