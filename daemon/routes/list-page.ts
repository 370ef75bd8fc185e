import type { ListPage, ListPageOptions } from '../../shared/api.ts';
import { listPageQuerySchema } from '../../shared/schemas.ts';
import { invalidRequest, validate } from '../http/validate.ts';

/**
 * The page a validated list request asks for: `undefined` is every page joined, `{}` the first page
 * alone. Asking by cursor and for the first page at once is a 400.
 */
export function listPageOf({ cursor, page }: ListPageOptions): ListPage | undefined {
  if (cursor !== undefined && page !== undefined) {
    throw invalidRequest([
      { path: 'page', message: 'ask for a page either by cursor or as "first", not both' },
    ]);
  }
  if (cursor !== undefined) return { cursor };
  return page === 'first' ? {} : undefined;
}

/** The page asked for in the query of a `GET /servers/:id/…` list: `?cursor=…` or `?page=first`. */
export function listPageOfQuery(query: unknown): ListPage | undefined {
  return listPageOf(validate<ListPageOptions>(listPageQuerySchema, query ?? {}));
}
