import type { ServerResponse } from 'node:http';

/**
 * `res.status(status).json(body)` for the routes every tool call takes. Express's own `json` and `send`
 * look the content type up in the MIME table, parse it back to add a charset and format it again on
 * each answer; this writes the same headers and bytes directly. Headers set earlier (CORS) are kept.
 */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}
