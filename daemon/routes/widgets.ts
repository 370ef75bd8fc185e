import { type Request, type RequestHandler, type Response, Router } from 'express';
import type { JsonObject } from '../../shared/api.ts';
import { isMcpAppMimeType, mcpAppCspOf } from '../../shared/mcp-apps.ts';
import { widgetStoreRequestSchema } from '../../shared/schemas.ts';
import {
  DEFAULT_WIDGET_GLOBALS,
  WIDGET_CSP_KEY,
  type WidgetPageData,
  type WidgetRecord,
  type WidgetStoreRequest,
  type WidgetStoreResponse,
  type WidgetViewResponse,
  WIDGET_TOOL_ID_PATTERN,
  widgetCspOf,
} from '../../shared/widgets.ts';
import { DaemonError, UpstreamError } from '../errors.ts';
import { validate } from '../http/validate.ts';
import type { ClientManager } from '../mcp/client-manager.ts';
import type { ServerConnection } from '../mcp/server-connection.ts';
import { bridgeScript } from '../widgets/bridge-script.ts';
import { appsSdkPolicy, type DaemonAddress, mcpAppPolicy } from '../widgets/widget-csp.ts';
import { containerPage, widgetHtmlHeaders, widgetPage } from '../widgets/widget-page.ts';
import type { WidgetStore } from '../widgets/widget-store.ts';

export interface WidgetsRouterOptions {
  /** How long the bridge's callTool waits for the host before it rejects. */
  callToolTimeoutMs: number;
}

/** In the container page nobody answers the bridge: its callTool rejects after this long. */
export const CONTAINER_CALL_TOOL_TIMEOUT_MS = 10_000;

/** Every route that serves HTML a widget can read; none of them takes the token in its address. */
const WIDGET_HTML_ROUTES = [
  '/resources/widget/:toolId',
  '/openai/widget-content/:toolId',
  '/openai/widget/:toolId',
];

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
 * The domains a widget resource declares, read by `of` from a `_meta`: the read content's `_meta` wins
 * when it has the key; without it, the resources/list entry's counts (ext-apps' rule, which the Apps-SDK
 * convention shares). An unlisted resource, or a list that fails, declares nothing, which gives the most
 * restrictive policy.
 */
async function declaredCsp<T>(
  connection: ServerConnection,
  uri: string,
  item: JsonObject,
  has: (meta: JsonObject) => boolean,
  of: (meta: unknown) => T | undefined,
): Promise<T | undefined> {
  const meta = item._meta as JsonObject | undefined;
  if (meta && typeof meta === 'object' && has(meta)) return of(meta);
  try {
    const { items } = await connection.listAll('resources/list', 'resources');
    return of(items.find((listed) => listed.uri === uri)?._meta);
  } catch {
    return undefined;
  }
}

/** The daemon's port and Host name as this request reached it: a widget's policy never allows either. */
function daemonAddressOf(req: Request): DaemonAddress {
  return { port: req.socket.localPort ?? 0, hostname: req.hostname };
}

const WIDGET_ID = new RegExp(WIDGET_TOOL_ID_PATTERN);

/** An id no widget can have is not quoted back: what follows a `;` or a `%` may be anything, a token too. */
const unknownWidget = (toolId: string): DaemonError =>
  new DaemonError(
    'widget_not_found',
    WIDGET_ID.test(toolId)
      ? `Unknown or expired widget "${toolId}"`
      : 'Unknown widget: a widget id is 1 to 128 letters, digits and . _ : -',
  );

interface RenderedWidget {
  record: WidgetRecord;
  html: string;
  headers: Record<string, string>;
}

/**
 * The widget page of a stored record, read from its MCP server: an Apps-SDK page with the
 * `window.openai` bridge under the policy its `_meta["openai/widgetCSP"]` declares, or an MCP App page
 * (`text/html;profile=mcp-app`) with its `_meta.ui.csp` policy and no bridge.
 */
async function renderWidget(
  manager: ClientManager,
  store: WidgetStore,
  req: Request,
  callToolTimeoutMs: number,
): Promise<RenderedWidget> {
  const toolId = String(req.params.toolId);
  const record = store.get(toolId);
  if (!record) throw unknownWidget(toolId);
  const connection = manager.get(record.serverId);
  const read = await connection.request('resources/read', { uri: record.uri });
  const { html, item } = htmlOf(read, record.uri);
  const daemon = daemonAddressOf(req);
  if (isMcpAppMimeType(item.mimeType)) {
    // An MCP App gets no window.openai bridge: the host speaks the MCP Apps protocol with it.
    const csp = await declaredCsp(connection, record.uri, item, (meta) => meta.ui !== undefined, mcpAppCspOf);
    const policy = mcpAppPolicy(csp, daemon);
    return { record, html: widgetPage(html, policy), headers: widgetHtmlHeaders(policy) };
  }
  const csp = await declaredCsp(
    connection,
    record.uri,
    item,
    (meta) => meta[WIDGET_CSP_KEY] !== undefined,
    widgetCspOf,
  );
  const policy = appsSdkPolicy(csp, daemon);
  const data: WidgetPageData = {
    toolId,
    callToolTimeoutMs,
    globals: {
      ...DEFAULT_WIDGET_GLOBALS,
      ...record.globals,
      toolInput: record.toolInput,
      toolOutput: record.toolOutput,
      toolResponseMetadata: record.toolResponseMetadata ?? null,
    },
  };
  return { record, html: widgetPage(html, policy, bridgeScript(data)), headers: widgetHtmlHeaders(policy) };
}

/** The container page of a rendered widget, under the widget's own policy (its srcdoc frame inherits it). */
function sendContainer(res: Response, { record, html, headers }: RenderedWidget): void {
  res.set(headers).send(containerPage(record.toolId, html));
}

/** A widget page must not take the token from its address: its script reads `location` and `baseURI`. */
function refuseTokenInAddress(req: Request): void {
  if (req.query.token !== undefined) {
    throw new DaemonError(
      'invalid_request',
      'token: widget pages take the token in the X-Inspector-Token header only (a browser tab opens the container page with a view code from POST /api/mcp/openai/widget/:toolId/view); widget code could read it from the address',
    );
  }
}

const SPENT_VIEW_CODE =
  'view: unknown, used or expired view code. A view code opens its one widget once, within a minute; POST /api/mcp/openai/widget/:toolId/view with the token gives a new address';

/**
 * What the API answers before the token middleware (mount it in front of it; the Host and Origin checks
 * stay in front of both):
 * - `?token=` on any widget HTML route: 400, whether or not the token is also in the header;
 * - GET /openai/widget/:toolId?view=<code>: the container page for a browser tab, which cannot send the
 *   header. The code (from POST /openai/widget/:toolId/view) is spent here, good or not; an unknown,
 *   spent, expired or other widget's code gets 401. Without `?view=` the request goes on to the token
 *   middleware and {@link widgetsRouter}.
 */
export function widgetViewRouter(manager: ClientManager, store: WidgetStore): RequestHandler {
  const router = Router();

  router.get(WIDGET_HTML_ROUTES, (req, _res, next) => {
    refuseTokenInAddress(req);
    next();
  });

  router.get('/openai/widget/:toolId', async (req, res, next) => {
    const code = req.query.view;
    if (code === undefined) return next();
    if (typeof code !== 'string' || !store.redeemViewCode(String(req.params.toolId), code)) {
      throw new DaemonError('invalid_view_code', SPENT_VIEW_CODE);
    }
    sendContainer(res, await renderWidget(manager, store, req, CONTAINER_CALL_TOOL_TIMEOUT_MS));
  });

  // Its routes are all GETs (express routes HEAD as GET): any other request, every tool call among
  // them, passes on without the router trying each path.
  return (req, res, next) => {
    if (req.method === 'GET' || req.method === 'HEAD') router(req, res, next);
    else next();
  };
}

/**
 * Both widget route families of SPEC part 4 over one store (DESIGN: widgets), behind the token
 * middleware:
 * - POST /resources/widget/store and /openai/widget/store: store a record for an hour;
 * - GET /resources/widget/:toolId and /openai/widget-content/:toolId: the widget page with its bridge
 *   (an MCP App page, `text/html;profile=mcp-app`, with its declared policy and no bridge);
 * - GET /openai/widget/:toolId: the container page, for a caller that sends the token in the header;
 * - POST /openai/widget/:toolId/view: the address that opens the container page in a browser tab, with
 *   a single-use view code good for a minute (see {@link widgetViewRouter}, which serves it).
 * No widget page takes the token from its address.
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

  router.post('/openai/widget/:toolId/view', (req, res) => {
    const toolId = String(req.params.toolId);
    if (!store.get(toolId)) throw unknownWidget(toolId);
    const { code, expiresAt } = store.issueViewCode(toolId);
    const path = `${req.baseUrl}/openai/widget/${encodeURIComponent(toolId)}?view=${code}`;
    const answer: WidgetViewResponse = {
      url: new URL(path, `${req.protocol}://${req.get('host') ?? 'localhost'}`).href,
      expiresAt: expiresAt.toISOString(),
    };
    res.json(answer);
  });

  router.get(WIDGET_HTML_ROUTES, (req, _res, next) => {
    refuseTokenInAddress(req);
    next();
  });

  router.get(['/resources/widget/:toolId', '/openai/widget-content/:toolId'], async (req, res) => {
    const { html, headers } = await renderWidget(manager, store, req, options.callToolTimeoutMs);
    res.set(headers).send(html);
  });

  router.get('/openai/widget/:toolId', async (req, res) => {
    sendContainer(res, await renderWidget(manager, store, req, CONTAINER_CALL_TOOL_TIMEOUT_MS));
  });

  return router;
}
