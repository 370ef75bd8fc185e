import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import express, { type Express } from 'express';
import { deferredPackageLoaders } from './deferred-packages.ts';
import { directRoutes } from './http/direct-routes.ts';
import { apiNotFound, errorMiddleware, sendError } from './http/error-middleware.ts';
import { jsonBody } from './http/json-body.ts';
import { optionsAnswer } from './http/options-answer.ts';
import { staticFiles } from './http/static-files.ts';
import { under } from './http/under.ts';
import { prepareValidator, schemaCompiler } from './http/validate.ts';
import { LogBus } from './logs/log-bus.ts';
import { ClientManager } from './mcp/client-manager.ts';
import { attachLiveChannel, isWebSocketUpgrade } from './live/live-channel.ts';
import { LiveEvents } from './live/live-events.ts';
import { ExecutionManager } from './mcp/execution.ts';
import { OAuthManager } from './oauth/oauth-manager.ts';
import { DataFolderTaken, type DataFolderLock, lockDataFolder } from './servers/data-lock.ts';
import { oauthCallbackRouter, oauthServerRouter } from './routes/oauth.ts';
import { loadClientRuntime } from './mcp/server-connection.ts';
import { DEV_SERVER_URL, type DaemonOptions } from './options.ts';
import { executeRequestSchema, listRequestSchema, serverConfigSchema } from '../shared/schemas.ts';
import { healthRouter } from './routes/health.ts';
import { promptsRouter } from './routes/prompts.ts';
import { resourcesRouter } from './routes/resources.ts';
import { rpcLogsRouter } from './routes/rpc-logs.ts';
import { serverFeaturesRouter } from './routes/server-features.ts';
import { putEnvelopeSchema, serversRouter } from './routes/servers.ts';
import { tasksRouter } from './routes/tasks.ts';
import { executeFromBody, toolsRouter } from './routes/tools.ts';
import { userRouter } from './routes/user.ts';
import { widgetsRouter, widgetViewRouter } from './routes/widgets.ts';
import { AuthFailureLimiter } from './security/auth-failure-limiter.ts';
import { allowedHostSet, hostCheckMiddleware, isLoopbackHost } from './security/host-check-middleware.ts';
import { devOrigins, originMiddleware } from './security/origin-middleware.ts';
import { requestTarget } from './http/request-target.ts';
import { answerClientErrors } from './http/socket-answers.ts';
import { rateLimitMiddleware } from './security/rate-limit-middleware.ts';
import { tokenMiddleware } from './security/token-middleware.ts';
import { loadOrCreateToken } from './security/token-store.ts';
import { UserTokenValidator } from './security/user-tokens.ts';
import { checkServerConfigs } from './servers/check-config.ts';
import { parseMcpServers } from './servers/registry-file.ts';
import { WidgetStore } from './widgets/widget-store.ts';

export interface Daemon {
  app: Express;
  options: DaemonOptions;
  /** `null` when auth is off. */
  token: string | null;
  manager: ClientManager;
  executions: ExecutionManager;
  bus: LogBus;
  events: LiveEvents;
  widgets: WidgetStore;
  /** Starts listening; resolves with the URL (the real port when `port` was 0). */
  listen(): Promise<string>;
  /** Closes every MCP connection and child process, then the HTTP server. */
  close(): Promise<void>;
}

export class StartupError extends Error {
  override name = 'StartupError';
}

/**
 * The rate limiter's key function, the packages express defers (deferred-packages.ts, in the compiled
 * daemon), the schema compiler with the schemas of the commonest requests, and the MCP client (the SDK)
 * are loaded on first use, so the daemon listens sooner; once it listens, this loads them while it waits
 * for requests, one a turn of the event loop, so that a request that comes meanwhile waits for one of
 * them at most, not for all. Returns what stops it, for a daemon closed before it is done.
 */
function loadAfterListening(rateLimiter: { prepare(): void } | undefined): () => void {
  const steps: Array<() => unknown> = [
    () => rateLimiter?.prepare(),
    ...deferredPackageLoaders(),
    schemaCompiler,
    // The schemas of a first session's requests: adding a server, listing its tools, calling one.
    ...[putEnvelopeSchema, ...serverConfigSchema.oneOf, listRequestSchema, executeRequestSchema].map(
      (schema) => () => prepareValidator(schema),
    ),
    () =>
      loadClientRuntime().catch(() => {
        // A connection that needs it will load it again and report the failure.
      }),
  ];
  // Kept referenced: an unreferenced immediate lets the event loop sleep until some I/O comes, so the
  // steps after the first waited for the first request.
  let pending: NodeJS.Immediate | undefined = setImmediate(function next() {
    try {
      steps.shift()?.();
    } catch {
      // Loaded early only to be ready: what needs it loads it again and reports the failure to its request.
    }
    pending = steps.length > 0 ? setImmediate(next) : undefined;
  });
  return () => {
    if (pending) clearImmediate(pending);
    pending = undefined;
  };
}

/** A data folder the daemon cannot use, said with the folder and the fix (not as a listening problem). */
function dataFolderProblem(folder: string, error: unknown): StartupError {
  const { code, message } = error as NodeJS.ErrnoException;
  const why =
    code === 'EACCES' || code === 'EPERM'
      ? 'this user may not write there'
      : code === 'EROFS'
        ? 'it is on a read-only file system'
        : code === 'ENOTDIR' || code === 'EEXIST'
          ? 'a part of that path is a file, not a folder'
          : code === 'ENOENT'
            ? 'a folder on that path is missing and cannot be made'
            : message;
  return new StartupError(
    `cannot use the data folder ${folder}: ${why}; give one this user can write with --data-dir (or INSPECTOR_DATA_DIR)`,
  );
}

/** The one factory: the command line, tests and any embedding shell build the daemon here (SPEC part 1). */
export async function createDaemon(options: DaemonOptions): Promise<Daemon> {
  if (options.token === null && !isLoopbackHost(options.host)) {
    throw new StartupError(
      `--no-auth is refused on the non-loopback address ${options.host}: anyone who can reach it could start processes`,
    );
  }
  const token =
    options.token === undefined
      ? await loadOrCreateToken(options.dataDir).catch((error: unknown) => {
          throw dataFolderProblem(options.dataDir, error);
        })
      : options.token;
  const development = options.mode === 'development';
  // The web page's dev server may call the API in development (origin-middleware.ts).
  const devServerOrigins = devOrigins(development, options.devServerUrl);
  const bus = new LogBus(options.logBufferSize, options.logBufferBytes);
  const events = new LiveEvents();
  const publish = events.publish.bind(events);
  const executions = new ExecutionManager(options, publish);
  const oauth = new OAuthManager(
    options.dataDir,
    (serverId) => {
      if (manager.has(serverId)) publish({ type: 'server-status', server: manager.get(serverId).record() });
    },
    (trace) => publish({ type: 'auth-trace', trace }),
  );
  const manager: ClientManager = new ClientManager(
    join(options.dataDir, 'servers.json'),
    {
      bus,
      oauth,
      connectTimeoutMs: options.connectTimeoutMs,
      maxMessageBytes: options.maxMessageBytes,
      onElicitation: executions.handleElicitation,
      onSampling: executions.handleSampling,
      onStatus: (server) => publish({ type: 'server-status', server }),
      onNotification: (serverId, method, params) => {
        if (method === 'notifications/tasks/status') executions.onTaskStatus(serverId, params);
        publish({ type: 'notification', serverId, method, ...(params && { params }) });
      },
      debug: options.debug,
    },
    {
      onReplaced: (id, config) => oauth.dropIfChanged(id, config),
      onRemoved: (serverId) => publish({ type: 'server-removed', serverId }),
    },
  );
  // Before the registry is read: another daemon on this folder would write it over with its own servers.
  let folder: DataFolderLock;
  try {
    folder = await lockDataFolder(options.dataDir);
  } catch (error) {
    throw error instanceof DataFolderTaken
      ? new StartupError(error.message)
      : dataFolderProblem(options.dataDir, error);
  }
  try {
    await manager.load();
  } catch (error) {
    await folder.release();
    const file = join(options.dataDir, 'servers.json');
    throw new StartupError(
      `Cannot read the server registry ${file}: ${(error as Error).message}; fix the file there, or move it away to start with no servers`,
    );
  }
  if (options.configFile) {
    let servers: ReturnType<typeof parseMcpServers>;
    try {
      servers = parseMcpServers(JSON.parse(await readFile(options.configFile, 'utf8')), options.configFile);
      checkServerConfigs(servers.map(({ id, config }) => ({ path: `mcpServers.${id}`, config })));
    } catch (error) {
      await folder.release();
      throw new StartupError(`Cannot import --config ${options.configFile}: ${(error as Error).message}`);
    }
    await manager.put(servers);
  }
  // The grants kept from the last run: a record says "authorized" before its first connection.
  await Promise.all(manager.list().map(({ id }) => oauth.preload(id, manager.configOf(id))));

  const widgets = new WidgetStore({ ttlMs: options.widgetTtlMs });

  const app = express();
  app.disable('x-powered-by');
  // API answers are never revalidated: hashing every body for an ETag is wasted work.
  app.set('etag', false);
  app.set('trust proxy', false);
  // Host first: a rebinding page must learn nothing, not even whether the token was right.
  const allowedHosts = [...options.allowedHosts, options.host];
  app.use(hostCheckMiddleware({ allowedHosts }));
  app.use(optionsAnswer());
  // The authorization server's redirect: no token, no Origin to check; `state` binds it to a flow.
  app.use(oauthCallbackRouter(manager, oauth));
  app.use(originMiddleware({ devOrigins: devServerOrigins }));
  app.use('/api/mcp/health', healthRouter(options.mode, Date.now(), options.userAuth?.signIn));

  const limiter = new AuthFailureLimiter({ limit: options.authFailuresPerMinute, windowMs: 60_000 });
  const api = express.Router();
  // The widget and server-feature routers sit at the API root; each is only walked by its own paths.
  const widgetPaths = ['/resources/widget/', '/openai/'];
  api.use(under(widgetPaths, widgetViewRouter(manager, widgets)));
  // Without a token, the Origin is all that tells a known page from anything else: it must be there.
  if (token === null) api.use(originMiddleware({ devOrigins: devServerOrigins, requireOrigin: true }));
  const userTokens = options.userAuth && new UserTokenValidator({ backendUrl: options.userAuth.backendUrl });
  api.use(tokenMiddleware({ token, limiter, userTokens }));
  const rateLimiter =
    options.rateLimitPerMinute > 0 ? rateLimitMiddleware(options.rateLimitPerMinute) : undefined;
  if (rateLimiter) api.use(rateLimiter);
  api.use(jsonBody(options.bodyLimitBytes));
  api.use('/user', userRouter());
  api.use('/servers', oauthServerRouter(manager, oauth));
  api.use('/servers', serversRouter(manager, executions));
  api.use(under(['/servers/', '/completions/'], serverFeaturesRouter(manager)));
  api.use('/tools', toolsRouter(manager, executions));
  api.use('/tasks', tasksRouter(manager, executions));
  // At the API root: the widget routes span both families, /resources/widget… and /openai/widget….
  api.use(
    under(
      widgetPaths,
      widgetsRouter(manager, widgets, {
        // The longest the daemon itself waits for one call: the tool time-out plus one unanswered elicitation.
        callToolTimeoutMs: options.toolTimeoutMs + options.elicitationTimeoutMs,
      }),
    ),
  );
  api.use('/resources', resourcesRouter(manager));
  api.use('/prompts', promptsRouter(manager));
  api.use(
    '/rpc-logs',
    rpcLogsRouter(bus, {
      keepaliveMs: options.sseKeepaliveMs,
      maxBufferedBytes: options.sseMaxBufferedBytes,
    }),
  );
  api.use(apiNotFound());
  app.use('/api/mcp', api);
  if (!development) {
    const files = staticFiles(options.staticDir);
    if (files) app.use(files);
  } else if (options.devServerUrl) {
    // An unpackaged desktop app: its pages come from the dev server (SPEC part 1).
    const devServer = options.devServerUrl;
    app.use((req, res, next) => {
      if (req.method !== 'GET' && req.method !== 'HEAD') return next();
      // Only the path and query move over: `//other.host/` must not become a redirect elsewhere.
      const asked = requestTarget(req.originalUrl);
      if (asked === undefined) return next();
      const target = new URL(devServer);
      target.pathname = asked.pathname;
      target.search = asked.search;
      res.redirect(302, target.href);
    });
  }
  app.use((req, res) => {
    const notFound = `Not found: ${req.method} ${req.path.slice(0, 200)}`;
    // Well-known metadata is none of the page's: no hint about building it.
    if (/^\/+\.well-known\//.test(req.path)) return sendError(res, 'route_not_found', notFound);
    sendError(
      res,
      'route_not_found',
      development
        ? `${notFound} (in development the web page is served by the Vite dev server: npm run dev:web, then open ${DEV_SERVER_URL})`
        : `${notFound} (is the web page built? npm run build)`,
    );
  });
  const errors = { development, log: options.log };
  app.use(errorMiddleware(errors));
  const listener = directRoutes({
    app,
    token,
    allowedHosts,
    devOrigins: devServerOrigins,
    limiter,
    rateLimiter,
    bodyLimitBytes: options.bodyLimitBytes,
    errors,
    execute: (body) => executeFromBody(manager, executions, body),
  });

  let server: Server | undefined;
  let live: { close(): void } | undefined;
  let stopLoading: (() => void) | undefined;
  return {
    app,
    options,
    token,
    manager,
    executions,
    bus,
    events,
    widgets,
    async listen() {
      server = createServer(
        // A request without Host is refused by the Host check with the error body, not by Node bare.
        { shouldUpgradeCallback: isWebSocketUpgrade, requireHostHeader: false },
        listener,
      );
      answerClientErrors(server, options.bodyLimitBytes);
      server.listen(options.port, options.host);
      await once(server, 'listening');
      live = attachLiveChannel(server, {
        bus,
        events,
        token,
        allowedHosts: allowedHostSet(allowedHosts),
        limiter,
        userTokens,
        devOrigins: devServerOrigins,
        pingMs: options.sseKeepaliveMs,
        maxBufferedBytes: options.sseMaxBufferedBytes,
      });
      // Listening comes first; what the first requests and the first connection need is loaded right after.
      stopLoading = loadAfterListening(rateLimiter);
      const { port } = server.address() as AddressInfo;
      const host = options.host.includes(':') ? `[${options.host}]` : options.host;
      oauth.setBaseUrl(`http://${host}:${port}`);
      return `http://${host}:${port}`;
    },
    async close() {
      stopLoading?.();
      live?.close();
      widgets.close();
      await manager.closeAll();
      if (server) {
        const closed = new Promise<void>((resolve) => server?.close(() => resolve()));
        // Open SSE streams and keep-alive sockets would hold close() forever.
        server.closeAllConnections();
        await closed;
      }
      await folder.release();
    },
  };
}
