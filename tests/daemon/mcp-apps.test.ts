import { EXTENSION_ID, RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BRIDGE_ATTRIBUTE } from '../../daemon/widgets/bridge-script.ts';
import {
  hostSources,
  isMcpAppMimeType,
  MCP_APP_MIME_TYPE,
  MCP_APPS_EXTENSION_ID,
  mcpAppCspDirectives,
} from '../../shared/mcp-apps.ts';
import { MCP_APP_VIEW_HTML } from '../fixtures/mcp-app-view.ts';
import { fixtureStdio, startDaemon, type TestDaemon } from './helpers.ts';

const APP_URI = 'ui://greeting/app.html';
const META_CSP = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/;

/** The directives of a policy by name, each with its sources. */
const directives = (policy: string): Map<string, string> => {
  const byName = new Map<string, string>();
  for (const directive of policy.split(';').map((part) => part.trim())) {
    const [name = '', ...sources] = directive.split(/\s+/);
    // A repeated directive is ignored by browsers; the test makes sure there is none.
    expect(byName.has(name), `directive ${name} appears twice`).toBe(false);
    byName.set(name, sources.join(' '));
  }
  return byName;
};

const unescapeAttribute = (value: string): string =>
  value
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

describe('MCP Apps in the daemon', () => {
  let d: TestDaemon;
  let next = 0;
  const show = async (uri: string, path = '/api/mcp/resources/widget/') => {
    const toolId = `app-${++next}`;
    const stored = await d.api('POST', '/api/mcp/resources/widget/store', {
      serverId: 'apps',
      uri,
      toolInput: { name: 'Ada' },
      toolOutput: { greeting: 'Hello, Ada!' },
      toolId,
    });
    expect(stored.status).toBe(200);
    const served = await d.api('GET', `${path}${toolId}`);
    expect(served.status).toBe(200);
    return {
      html: served.body as string,
      header: served.headers.get('content-security-policy') ?? '',
      headers: served.headers,
    };
  };

  beforeAll(async () => {
    d = await startDaemon();
    await d.api('PUT', '/api/mcp/servers/apps', { config: fixtureStdio('mcp-app-server.ts') });
  });
  afterAll(() => d?.close());

  it('declares the io.modelcontextprotocol/ui extension, which the server reads with getUiCapability', async () => {
    expect(MCP_APPS_EXTENSION_ID).toBe(EXTENSION_ID);
    expect(MCP_APP_MIME_TYPE).toBe(RESOURCE_MIME_TYPE);
    const executed = await d.api('POST', '/api/mcp/tools/execute', {
      serverId: 'apps',
      toolName: 'client-ui-capability',
    });
    expect(executed.status).toBe(200);
    expect(executed.body.result.structuredContent).toEqual({
      capability: { mimeTypes: ['text/html;profile=mcp-app'] },
    });
  });

  it('lists the app tool with the resource its _meta.ui names', async () => {
    const listed = await d.api('POST', '/api/mcp/tools/list', { serverId: 'apps' });
    expect(listed.body.toolsMetadata['show-greeting'].ui).toEqual({ resourceUri: APP_URI });
  });

  it('serves an MCP App page unchanged but for its policy before anything of its own, without the window.openai bridge', async () => {
    const { html, headers } = await show(APP_URI);
    expect(html).not.toContain(BRIDGE_ATTRIBUTE);
    expect(html).not.toContain('window.openai');
    expect(html).toMatch(
      /^<!doctype html><meta http-equiv="Content-Security-Policy"[^>]*>\s*<html lang="en">/,
    );
    expect(html.replace(META_CSP, '')).toBe(MCP_APP_VIEW_HTML);
    expect(headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(headers.get('x-content-type-options')).toBe('nosniff');
    expect(headers.get('referrer-policy')).toBe('no-referrer');
    expect(headers.get('cache-control')).toBe('no-store');
  });

  it("builds the policy from the domains the read content declares, over its listing's", async () => {
    const { html, header } = await show(APP_URI);
    const policy = directives(header);
    expect(policy.get('default-src')).toBe("'none'");
    expect(policy.get('connect-src')).toBe('https://api.example.com wss://live.example.com');
    for (const name of ['script-src', 'style-src']) {
      expect(policy.get(name)).toBe(
        "'self' 'unsafe-inline' https://cdn.example.com https://*.fonts.example.net",
      );
    }
    expect(policy.get('img-src')).toBe("'self' data: https://cdn.example.com https://*.fonts.example.net");
    expect(policy.get('frame-src')).toBe("'none'");
    expect(policy.get('object-src')).toBe("'none'");
    expect(header).not.toContain('listed.example.com');
    expect(header).not.toContain('unsafe-eval');
    // The header adds what a <meta> cannot say; otherwise the page carries the same policy.
    expect(policy.get('sandbox')).toBe('allow-scripts');
    expect(policy.get('frame-ancestors')).toBe("'none'");
    const meta = unescapeAttribute(META_CSP.exec(html)?.[1] ?? '');
    expect(`${meta}; sandbox allow-scripts; frame-ancestors 'none'`).toBe(header);
  });

  it('falls back to the resources/list entry and drops declared values that are not host sources', async () => {
    const { html, header } = await show('ui://greeting/listed.html');
    expect(html).toMatch(/^<meta http-equiv="Content-Security-Policy" content="[^"]*"><p id="listed">/);
    const policy = directives(header);
    expect(policy.get('connect-src')).toBe('https://listed.example.com');
    expect(policy.get('frame-src')).toBe('https://www.youtube.com');
    expect(policy.get('script-src')).toBe("'self' 'unsafe-inline'");
    expect(header).not.toContain('evil.example.com');
    expect(header).not.toContain('unsafe-eval');
  });

  it('gives a resource that declares nothing the restrictive default of the spec', async () => {
    const { header } = await show('ui://greeting/plain.html');
    expect(header).toBe(
      [
        "default-src 'none'",
        "script-src 'self' 'unsafe-inline'",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data:",
        "font-src 'self'",
        "media-src 'self' data:",
        "connect-src 'none'",
        "frame-src 'none'",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'none'",
        'sandbox allow-scripts',
        "frame-ancestors 'none'",
      ].join('; '),
    );
  });

  it("gives the container page of an MCP App the app's policy and no bridge", async () => {
    const { html, header } = await show(APP_URI, '/api/mcp/openai/widget/');
    expect(directives(header).get('connect-src')).toBe('https://api.example.com wss://live.example.com');
    expect(html).toContain('<iframe sandbox="allow-scripts"');
    expect(html).not.toContain(BRIDGE_ATTRIBUTE);
  });
});

describe('MCP App mime type and policy', () => {
  it('recognises text/html with a profile=mcp-app parameter in any spelling', () => {
    for (const type of [
      'text/html;profile=mcp-app',
      'TEXT/HTML; Profile=MCP-App',
      'text/html; charset=utf-8; profile="mcp-app"',
    ]) {
      expect(isMcpAppMimeType(type), type).toBe(true);
    }
    for (const type of ['text/html', 'text/html+skybridge', 'text/plain;profile=mcp-app', undefined, 42]) {
      expect(isMcpAppMimeType(type), String(type)).toBe(false);
    }
  });

  it('keeps host sources and drops keywords, wildcards, schemes and anything that could add a directive', () => {
    expect(
      hostSources([
        'https://api.example.com',
        'https://*.example.com',
        'wss://live.example.com:8443',
        'http://localhost:5173',
        'cdn.example.com/assets/',
        '*',
        'https:',
        "'unsafe-eval'",
        'https://a.example.com; script-src *',
        'https://a.example.com https://b.example.com',
        'javascript://x',
        42,
      ]),
    ).toEqual([
      'https://api.example.com',
      'https://*.example.com',
      'wss://live.example.com:8443',
      'http://localhost:5173',
      'cdn.example.com/assets/',
    ]);
    expect(hostSources('https://api.example.com')).toEqual([]);
  });

  it('declares frame and base domains only where the resource names them', () => {
    const policy = directives(
      mcpAppCspDirectives({
        frameDomains: ['https://player.example.com'],
        baseUriDomains: ['https://cdn.example.com'],
      }).join('; '),
    );
    expect(policy.get('frame-src')).toBe('https://player.example.com');
    expect(policy.get('base-uri')).toBe('https://cdn.example.com');
    expect(policy.get('connect-src')).toBe("'none'");
  });
});
