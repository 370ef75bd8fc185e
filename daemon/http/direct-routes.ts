import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Answer } from '../../shared/routes.ts';
import { sendOutcome } from '../routes/tools.ts';
import type { AuthFailureLimiter } from '../security/auth-failure-limiter.ts';
import { DaemonError } from '../errors.ts';
import { allowedHostSet, forbiddenHostMessage, hostCheck } from '../security/host-check-middleware.ts';
import { allowCrossOrigin, originRefusal } from '../security/origin-middleware.ts';
import type { RateLimiter } from '../security/rate-limit-middleware.ts';
import { TOKEN_HEADER, tokenBytes, tokenMatches } from '../security/token-middleware.ts';
import { type ErrorAnswerOptions, errorAnswer } from './error-middleware.ts';
import { declaredTooLarge, isPlainJson, parseBody, readPlainJson, takeBufferedBody } from './json-body.ts';
import { malformedTargetMessage, plainTarget, requestTarget } from './request-target.ts';
import { sendJson } from './send-json.ts';

/** The one request answered here: every tool call of the panel, the popup and the command line. */
const DIRECT_EXECUTE_URL = '/api/mcp/tools/execute';

export interface DirectRouteOptions {
  /** The express app, which answers every request not taken here. */
  app: RequestListener;
  /** `null` when auth is off: then every request goes to the app. */
  token: string | null;
  allowedHosts: readonly string[];
  /** The dev server's origins, in development (origin-middleware.ts `devOrigins`). */
  devOrigins: readonly string[];
  limiter: AuthFailureLimiter;
  rateLimiter: RateLimiter | undefined;
  bodyLimitBytes: number;
  errors: ErrorAnswerOptions;
  execute(body: unknown): Promise<Answer<'POST /tools/execute'>>;
}

/**
 * The daemon's request listener: `POST /api/mcp/tools/execute` in its ordinary form is answered here,
 * everything else by express. Express's handling of a request (setting its own prototypes on the
 * request and answer, walking the middleware and the routers) was the largest single part of what the
 * daemon added to a tool call before the request reached the server (README "Benchmark").
 *
 * A request is taken only when every check the middleware would make passes, decided by the very
 * functions the middleware calls: the Host, the Origin, the session token in its header (a client
 * blocked after failed attempts, a user token, no token: the app), a plain JSON body of declared length
 * within the limit, and the exact path (another spelling of it: the app). Deciding touches nothing, so a
 * request handed on is answered by the app exactly as if this did not exist. A taken request is counted
 * by the same rate limiter, read by the same body reader, validated and run by the same function as the
 * express route (`executeFromBody`), and its errors become the same answers (`errorAnswer`).
 */
export function directRoutes(options: DirectRouteOptions): RequestListener {
  const { app, limiter, rateLimiter, bodyLimitBytes } = options;
  const expected = options.token === null ? null : tokenBytes(options.token);
  const hostAllowed = hostCheck(allowedHostSet(options.allowedHosts));
  const originRules = { devOrigins: options.devOrigins, requireOrigin: false };

  const takes = (req: IncomingMessage): boolean => {
    const { headers } = req;
    const token = headers[TOKEN_HEADER];
    return (
      expected !== null &&
      req.url === DIRECT_EXECUTE_URL &&
      req.method === 'POST' &&
      hostAllowed(headers.host) &&
      originRefusal(headers, originRules) === undefined &&
      !(limiter.tracking && limiter.blockedFor(limiter.keyOf(req)) !== undefined) &&
      typeof token === 'string' &&
      tokenMatches(expected, token) &&
      isPlainJson(req) &&
      !declaredTooLarge(req, bodyLimitBytes)
    );
  };

  const fail = (req: IncomingMessage, res: ServerResponse, error: unknown): void => {
    const { status, body } = errorAnswer(error, req, options.errors);
    if (res.headersSent) res.end();
    else sendJson(res, status, body);
  };

  return (req, res) => {
    if (!plainTarget(req.url) && requestTarget(req.url) === undefined) {
      // Express would find no route for it (its 404 page, not a JSON answer), and every `new URL` of it throws.
      const host = req.headers.host;
      fail(
        req,
        res,
        hostAllowed(host)
          ? new DaemonError('malformed_request', malformedTargetMessage(req.url))
          : new DaemonError('forbidden_host', forbiddenHostMessage(host)),
      );
      return;
    }
    if (!takes(req)) {
      app(req, res);
      return;
    }
    allowCrossOrigin(req, res);
    if (rateLimiter?.refuse(req, res)) return;
    const run = (body: unknown): void => {
      options
        .execute(body)
        .then((outcome) => sendOutcome(res, outcome))
        .catch((failure: unknown) => fail(req, res, failure));
    };
    process.nextTick(() => {
      const bytes = takeBufferedBody(req);
      if (!bytes) {
        readPlainJson(req, (error, body) => (error ? fail(req, res, error) : run(body)));
        return;
      }
      try {
        run(parseBody(bytes));
      } catch (error) {
        fail(req, res, error);
      }
      // Nothing is left to read: the request ends, as one read through its events does.
      req.resume();
    });
  };
}
