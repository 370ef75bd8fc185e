/**
 * Each request schema the daemon validates with (shared/schemas.ts) against the request type the code
 * uses (shared/api.ts, routes.ts, servers.ts, widgets.ts): the same properties, and the same required
 * ones. The checks are types: a schema and a type that drift apart fail `npm run typecheck`.
 */
import { describe, expectTypeOf, it } from 'vitest';
import type {
  CancelRequest,
  CompleteRequest,
  ExecuteRequest,
  ImportServersRequest,
  LoggingLevelRequest,
  PromptGetRequest,
  ResourceReadRequest,
  RespondRequest,
  ServerRequest,
} from '../../shared/api.ts';
import type { RootsRequest } from '../../shared/routes.ts';
import type * as Schemas from '../../shared/schemas.ts';
import type { PutServerRequest } from '../../shared/servers.ts';
import type { WidgetStoreRequest } from '../../shared/widgets.ts';

type Properties<S> = S extends { properties: infer P } ? keyof P : never;
type Required<S> = S extends { required: readonly (infer K)[] } ? K : never;
type RequiredKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? never : K }[keyof T];

describe('request schemas and request types', () => {
  it('name the same properties and the same required ones', () => {
    expectTypeOf<Properties<typeof Schemas.serverRequestSchema>>().toEqualTypeOf<keyof ServerRequest>();
    expectTypeOf<Required<typeof Schemas.serverRequestSchema>>().toEqualTypeOf<RequiredKeys<ServerRequest>>();
    expectTypeOf<Properties<typeof Schemas.executeRequestSchema>>().toEqualTypeOf<keyof ExecuteRequest>();
    expectTypeOf<Required<typeof Schemas.executeRequestSchema>>().toEqualTypeOf<
      RequiredKeys<ExecuteRequest>
    >();
    expectTypeOf<Properties<typeof Schemas.respondRequestSchema>>().toEqualTypeOf<keyof RespondRequest>();
    expectTypeOf<Required<typeof Schemas.respondRequestSchema>>().toEqualTypeOf<
      RequiredKeys<RespondRequest>
    >();
    expectTypeOf<Properties<typeof Schemas.cancelRequestSchema>>().toEqualTypeOf<keyof CancelRequest>();
    expectTypeOf<Required<typeof Schemas.cancelRequestSchema>>().toEqualTypeOf<RequiredKeys<CancelRequest>>();
    expectTypeOf<Properties<typeof Schemas.resourceReadRequestSchema>>().toEqualTypeOf<
      keyof ResourceReadRequest
    >();
    expectTypeOf<Required<typeof Schemas.resourceReadRequestSchema>>().toEqualTypeOf<
      RequiredKeys<ResourceReadRequest>
    >();
    expectTypeOf<Properties<typeof Schemas.promptGetRequestSchema>>().toEqualTypeOf<keyof PromptGetRequest>();
    expectTypeOf<Required<typeof Schemas.promptGetRequestSchema>>().toEqualTypeOf<
      RequiredKeys<PromptGetRequest>
    >();
    expectTypeOf<Properties<typeof Schemas.rootsRequestSchema>>().toEqualTypeOf<keyof RootsRequest>();
    expectTypeOf<Required<typeof Schemas.rootsRequestSchema>>().toEqualTypeOf<RequiredKeys<RootsRequest>>();
    expectTypeOf<Properties<typeof Schemas.loggingLevelRequestSchema>>().toEqualTypeOf<
      keyof LoggingLevelRequest
    >();
    expectTypeOf<Required<typeof Schemas.loggingLevelRequestSchema>>().toEqualTypeOf<
      RequiredKeys<LoggingLevelRequest>
    >();
    expectTypeOf<Properties<typeof Schemas.completeRequestSchema>>().toEqualTypeOf<keyof CompleteRequest>();
    expectTypeOf<Required<typeof Schemas.completeRequestSchema>>().toEqualTypeOf<
      RequiredKeys<CompleteRequest>
    >();
    expectTypeOf<Properties<typeof Schemas.putServerRequestSchema>>().toEqualTypeOf<keyof PutServerRequest>();
    expectTypeOf<Required<typeof Schemas.putServerRequestSchema>>().toEqualTypeOf<
      RequiredKeys<PutServerRequest>
    >();
    expectTypeOf<Properties<typeof Schemas.importServersRequestSchema>>().toEqualTypeOf<
      keyof ImportServersRequest
    >();
    expectTypeOf<Required<typeof Schemas.importServersRequestSchema>>().toEqualTypeOf<
      RequiredKeys<ImportServersRequest>
    >();
    expectTypeOf<Properties<typeof Schemas.widgetStoreRequestSchema>>().toEqualTypeOf<
      keyof WidgetStoreRequest
    >();
    expectTypeOf<Required<typeof Schemas.widgetStoreRequestSchema>>().toEqualTypeOf<
      RequiredKeys<WidgetStoreRequest>
    >();
  });
});
