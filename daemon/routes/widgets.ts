import { type Request, Router } from 'express';
import type { JsonObject } from '../../shared/api.ts';
import { isMcpAppMimeType, type McpAppCsp, mcpAppCspOf } from '../../shared/mcp-apps.ts';
import { widgetStoreRequestSchema } from '../../shared/schemas.ts';
import {
  DEFAULT_WIDGET_GLOBALS,
  type WidgetPageData,
  type WidgetRecord,
  type WidgetStoreRequest,
  type WidgetStoreResponse,
} from '../../shared/widgets.ts';
import { badRequest, notFound, UpstreamError } from '../errors.ts';
import { validate } from '../http/validate.ts';
import type { ClientManager } from '../mcp/client-manager.ts';
import type { ServerConnection } from '../mcp/server-connection.ts';
import { bridgeScript } from '../widgets/bridge-script.ts';
import {
  containerPage,
  mcpAppHtmlHeaders,
  mcpAppPage,
  WIDGET_HTML_HEADERS,
  widgetPage,
} from '../widgets/widget-page.ts';
import type { WidgetStore } from '../widgets/widget-store.ts';

export interface WidgetsRouterOptions {
  /** How long the bridge's callTool waits for the host before it rejects. */
  callToolTimeoutMs: number;
}

const HTML_TYPES = new Set(['text/html', 'text/html+skybridge']);

/** `text/html`, `text/html+skybridge` or `text/html;profile=mcp-app` (any parameters), in any case. */
function isHtml(mimeType: unknown): boolean {
  return typeof mimeType === 'string' && HTML_TYPES.has(mimeType.split(';')[0]!.trim().toLowerCase());
}

/** The first HTML item of a resources/read result and its text (a base64 `blob` is decoded). */
export function htmlOf(result: JsonObject, uri: string): { html: string; item: JsonObject } {
  const contents = Array.isArray(result.contents) ? (result.contents as JsonObject[]) : [];
  for (const item of contents) {
    if (!item || !isHtml(item.mimeType)) continue;
    if (typeof item.text === 'string') return { html: item.text, item };
    if (typeof item.blob === 'string') {
      return { html: Buffer.from(item.blob, 'base64').toString('utf8'), item };
    }
  }
  throw new UpstreamError(`The resource ${uri} has no text/html content`, 'NO_HTML_CONTENT');
}

/**
 * The domains an MCP App declares: the read content's `_meta.ui` wins; without one, the resources/list
 * entry's counts (ext-apps' rule). An unlisted resource, or a list that fails, declares nothing, which
 * gives the most restrictive policy.
 */
async function declaredCsp(
  connection: ServerConnection,
  uri: string,
  item: JsonObject,
): Promise<McpAppCsp | undefined> {
  const meta = item._meta as JsonObject | undefined;
  if (meta && typeof meta === 'object' && meta.ui !== undefined) return mcpAppCspOf(meta);
  try {
    const { items } = await connection.listAll('resources/list', 'resources');
    return mcpAppCspOf(items.find((listed) => listed.uri === uri)?._meta);
  } catch {
    return undefined;
  }
}

/**
 * Both widget route families of SPEC part 4 over one store (DESIGN: widgets):
 * - POST /resources/widget/store and /openai/widget/store: store a record for an hour;
 * - GET /resources/widget/:toolId and /openai/widget-content/:toolId: the widget page with its bridge
 *   (an MCP App page, `text/html;profile=mcp-app`, with its declared policy and no bridge);
 * - GET /openai/widget/:toolId: a container page for a browser tab.
 * The token middleware in front of the API guards them all.
 */
export function widgetsRouter(
  manager: ClientManager,
  store: WidgetStore,
  options: WidgetsRouterOptions,
): Router {
  const router = Router();

  router.post(['/resources/widget/store', '/openai/widget/store'], (req, res) => {
    const body = validate<WidgetStoreRequest>(widgetStoreRequestSchema, req.body);
    manager.get(body.serverId);
    const { serverId, uri, toolInput, toolOutput, toolId, toolResponseMetadata, globals } = body;
    const { expiresAt } = store.put({
      serverId,
      uri,
      toolInput,
      toolOutput,
      toolId,
      ...(toolResponseMetadata && { toolResponseMetadata }),
      ...(globals && { globals }),
    });
    const answer: WidgetStoreResponse = { success: true, toolId, expiresAt: expiresAt.toISOString() };
    res.json(answer);
  });

  async function render(
    req: Request,
  ): Promise<{ record: WidgetRecord; html: string; headers: Readonly<Record<string, string>> }> {
    const toolId = String(req.params.toolId);
    const record = store.get(toolId);
    if (!record) throw notFound(`Unknown or expired widget "${toolId}"`);
    const connection = manager.get(record.serverId);
    const read = await connection.request('resources/read', { uri: record.uri });
    const { html, item } = htmlOf(read, record.uri);
    if (isMcpAppMimeType(item.mimeType)) {
      // An MCP App gets no window.openai bridge: the host speaks the MCP Apps protocol with it.
      const csp = await declaredCsp(connection, record.uri, item);
      return { record, html: mcpAppPage(html, csp), headers: mcpAppHtmlHeaders(csp) };
    }
    const data: WidgetPageData = {
      toolId,
      callToolTimeoutMs: options.callToolTimeoutMs,
      globals: {
        ...DEFAULT_WIDGET_GLOBALS,
        ...record.globals,
        toolInput: record.toolInput,
        toolOutput: record.toolOutput,
        toolResponseMetadata: record.toolResponseMetadata ?? null,
      },
    };
    return { record, html: widgetPage(html, bridgeScript(data)), headers: WIDGET_HTML_HEADERS };
  }

  router.get(['/resources/widget/:toolId', '/openai/widget-content/:toolId'], async (req, res) => {
    // This document is the widget: its script reads `location`, so a token in the query would reach it.
    if (req.query.token !== undefined) {
      throw badRequest(
        'token: widget pages take the token in the X-Inspector-Token header only; widget code could read it from the address',
      );
    }
    const { html, headers } = await render(req);
    res.set(headers).send(html);
  });

  router.get('/openai/widget/:toolId', async (req, res) => {
    const { record, html, headers } = await render(req);
    res.set(headers).send(containerPage(record.toolId, html));
  });

  return router;
}
