import browser from 'webextension-polyfill';

// The devtools page only creates the panel; the inspector lives in devtools-panel.
void browser.devtools.panels.create('MCP', '/icon/128.png', '/devtools-panel.html');
