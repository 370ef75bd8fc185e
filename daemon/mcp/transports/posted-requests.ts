import type { RequestId } from '@modelcontextprotocol/client';

/** The requests a POST's body carries (the daemon's own JSON), their methods by id. */
export type PostedRequests = Map<RequestId, string>;

/** The requests a POST's body carries: none when it carries only notifications or responses. */
export function postedRequests(body: unknown): PostedRequests {
  const requests: PostedRequests = new Map();
  if (typeof body !== 'string') return requests;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return requests;
  }
  for (const message of Array.isArray(parsed) ? parsed : [parsed]) {
    const { id, method } = (message ?? {}) as { id?: unknown; method?: unknown };
    if (typeof method === 'string' && (typeof id === 'string' || typeof id === 'number'))
      requests.set(id, method);
  }
  return requests;
}

/** The POST a message answers is named by its requests' methods: "the POST of tools/call". */
export function postOf(requests: PostedRequests): string {
  return `the POST of ${[...new Set(requests.values())].join(' and ')}`;
}

/**
 * The requests of `requests` that `message` (parsed JSON) answers: a response, whose id is taken as the
 * SDK takes it (`Number(id)`, so "7" answers 7).
 */
export function answeredBy(message: unknown, requests: PostedRequests): RequestId[] {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return [];
  if ('method' in message || !('id' in message)) return [];
  const id = Number((message as { id?: unknown }).id);
  return [...requests.keys()].filter((request) => Number(request) === id);
}

/** The requests of `requests` that no message of `messages` answers. */
export function unanswered(messages: unknown[], requests: PostedRequests): PostedRequests {
  const left = new Map(requests);
  for (const message of messages) for (const id of answeredBy(message, requests)) left.delete(id);
  return left;
}
