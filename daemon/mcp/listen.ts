/**
 * Resource subscriptions of one server connection, in either era. A legacy (2025-11-25) server is asked
 * with `resources/subscribe` and `resources/unsubscribe` and remembers the subscriptions itself. A modern
 * (2026-07-28) server has no such methods: the client opens a `subscriptions/listen` stream naming every
 * URI it wants updates of, and asks again whenever that set changes; list changes, too, come only on
 * such a stream. Here the daemon keeps one such stream per modern connection, re-opened when a URI
 * comes or goes and ended with the connection. While no URI is subscribed it stands open for the list
 * changes alone when the server announces any (`listChanged` in its capabilities), and is ended
 * otherwise. Its notifications (`notifications/resources/updated`, the list_changed ones) arrive like
 * the unsolicited ones of a legacy server, so they reach the log, the live channel and the panel the
 * same way.
 */
import type { Client, McpSubscription, SubscriptionFilter } from '@modelcontextprotocol/client';
import type { JsonObject } from '../../shared/api.ts';
import { UpstreamError } from '../errors.ts';

/** What the subscriptions need of their connection (ServerConnection). */
export interface SubscriptionHost {
  /** The connected client, connecting first when there is none. */
  ensureConnected(): Promise<Client>;
  /** Runs a call on the client; a failure comes back in the daemon's terms, as every request's does. */
  withClient<T>(call: (client: Client) => Promise<T>): Promise<T>;
  /** A request through the connection's usual path. */
  request(method: string, params: JsonObject): Promise<JsonObject>;
  /** Whether the client is still the connection's own: not closed, dropped or replaced since. */
  isCurrent(client: Client): boolean;
  debug?: (line: string) => void;
}

/** The open listen stream, the client it runs on, the URIs it covers and when it was acknowledged. */
interface Stream {
  client: Client;
  subscription: McpSubscription;
  uris: readonly string[];
  openedAt: number;
}

/** How many times in a row a stream the server ends soon is opened again before the daemon gives up. */
const MAX_REOPENS = 3;

/** A stream that lasted this long ended for a reason of its own (a server restart), not at once again. */
const STEADY_MS = 10_000;

/**
 * The list changes a listen stream also asks for: at the modern era they come only on such a stream.
 * The server keeps those it does not offer out of its acknowledgement.
 */
const LIST_CHANGES = {
  toolsListChanged: true,
  promptsListChanged: true,
  resourcesListChanged: true,
} as const satisfies SubscriptionFilter;

export class ResourceSubscriptions {
  /** The URIs the open stream covers (modern era). */
  private uris: readonly string[] = [];
  private stream?: Stream;
  /** Changes of the set run one after another: each opens a stream for the set the last one left. */
  private queue: Promise<unknown> = Promise.resolve();
  /** Counts `end()`s: a stream opened across one belongs to a connection that is gone. */
  private generation = 0;
  /** Streams the server ended that were opened again since the last change asked for by a person. */
  private reopens = 0;
  /** Whether a stream stands open with no URI subscribed: the server announces list changes. */
  private standing = false;

  constructor(
    private readonly serverId: string,
    private readonly host: SubscriptionHost,
  ) {}

  /** Subscribes to the resource's updates; on a modern server the listen stream then covers it too. */
  async subscribe(uri: string): Promise<void> {
    if (!(await this.isModern())) {
      await this.host.request('resources/subscribe', { uri });
      return;
    }
    await this.change(() =>
      this.uris.includes(uri) && this.stream ? undefined : [...new Set([...this.uris, uri])],
    );
  }

  /** Stops the resource's updates; on a modern server the stream is opened again without it, or ended. */
  async unsubscribe(uri: string): Promise<void> {
    if (!(await this.isModern())) {
      await this.host.request('resources/unsubscribe', { uri });
      return;
    }
    await this.change(() => (this.uris.includes(uri) ? this.uris.filter((u) => u !== uri) : undefined));
  }

  /**
   * A modern connection is up: when its server announces list changes (`listChanged` of tools, prompts
   * or resources), a stream is opened for them at once, and stands open with no URI subscribed. Not
   * awaited by the connection; a failure is only worth a debug line, since the calls work without it.
   */
  listenForListChanges(capabilities: JsonObject | undefined): void {
    this.standing = announcesListChanges(capabilities);
    if (!this.standing) return;
    this.change(() => (this.stream && this.host.isCurrent(this.stream.client) ? undefined : [])).catch(
      (error: unknown) =>
        this.host.debug?.(`${this.serverId}: no listen stream for list changes: ${String(error)}`),
    );
  }

  /**
   * Ends the stream and forgets its URIs, at once and outside the queue: the connection is closing, and
   * a change still waiting for the server's acknowledgement fails when it does.
   */
  async end(): Promise<void> {
    this.generation += 1;
    this.standing = false;
    this.uris = [];
    const stream = this.stream;
    this.stream = undefined;
    await stream?.subscription.close();
  }

  private async isModern(): Promise<boolean> {
    return (await this.host.ensureConnected()).getProtocolEra() === 'modern';
  }

  /** Runs a change of the set after those before it; `next` says the new set, undefined for no change. */
  private change(next: () => readonly string[] | undefined): Promise<void> {
    const run = this.queue.then(async () => {
      const uris = next();
      if (!uris) return;
      this.reopens = 0;
      await this.replace(uris);
    });
    this.queue = run.catch(() => {});
    return run;
  }

  /**
   * Puts a stream for `uris` in place of the open one: the new one is acknowledged before the old one
   * closes, so no update falls between them. When the new one cannot be opened the old one stays. With
   * no URI the stream stands for the list changes alone, or is ended when the server has none.
   */
  private async replace(uris: readonly string[]): Promise<void> {
    const old = this.stream;
    if (!uris.length && !this.standing) {
      this.stream = undefined;
      this.uris = [];
      await old?.subscription.close();
      return;
    }
    const generation = this.generation;
    const stream: Stream = await this.host.withClient(async (client) => ({
      client,
      uris,
      subscription: await client
        .listen({ ...LIST_CHANGES, ...(uris.length > 0 && { resourceSubscriptions: [...uris] }) })
        .catch((error: unknown) => {
          throw endedEarly(error) ?? error;
        }),
      openedAt: Date.now(),
    }));
    if (generation !== this.generation) {
      await stream.subscription.close();
      throw new UpstreamError('The server was disconnected during the call.', 'DISCONNECTED');
    }
    const refused = refusedUris(stream.subscription.honoredFilter, uris);
    if (refused.length) {
      await stream.subscription.close();
      throw new UpstreamError(
        `The server did not agree to send updates of ${refused.join(', ')}.`,
        'SUBSCRIPTION_REFUSED',
        { honored: stream.subscription.honoredFilter },
      );
    }
    this.stream = stream;
    this.uris = uris;
    void stream.subscription.closed.then((cause) => this.ended(stream, cause));
    // The old stream may be one of a connection that is gone: nothing to tell its server then.
    await old?.subscription.close().catch(() => {});
  }

  /**
   * A stream ended. One the daemon closed or replaced is no news. One the server ended while the
   * connection stays is opened again (a few times in a row at most, when each ends soon after it was
   * opened); with the connection gone, its URIs are forgotten, as a legacy server forgets its
   * subscriptions (the panel clears its own then).
   */
  private ended(stream: Stream, cause: 'local' | 'graceful' | 'remote'): void {
    if (this.stream !== stream || cause === 'local') return;
    this.stream = undefined;
    if (Date.now() - stream.openedAt >= STEADY_MS) this.reopens = 0;
    const connected = this.host.isCurrent(stream.client);
    if (!connected || this.reopens >= MAX_REOPENS) {
      this.host.debug?.(`${this.serverId}: the listen stream ended (${cause}); its subscriptions are gone`);
      this.uris = [];
      return;
    }
    this.reopens += 1;
    this.host.debug?.(`${this.serverId}: the server ended the listen stream (${cause}); opening it again`);
    const uris = stream.uris;
    const run = this.queue.then(() => (this.stream || this.uris !== uris ? undefined : this.replace(uris)));
    this.queue = run.catch((error: unknown) => {
      this.host.debug?.(`${this.serverId}: the listen stream could not be opened again: ${String(error)}`);
      if (!this.stream) this.uris = [];
    });
  }
}

/** Whether server capabilities announce a list change of tools, prompts or resources. */
function announcesListChanges(capabilities: JsonObject | undefined): boolean {
  return ['tools', 'prompts', 'resources'].some(
    (kind) => (capabilities?.[kind] as { listChanged?: unknown } | null | undefined)?.listChanged === true,
  );
}

/** The URIs a stream asked for that the server's acknowledgement leaves out. */
function refusedUris(honored: SubscriptionFilter, uris: readonly string[]): string[] {
  const granted = Array.isArray(honored.resourceSubscriptions) ? honored.resourceSubscriptions : [];
  return uris.filter((uri) => !granted.includes(uri));
}

/**
 * The SDK's word that the server ended the stream before acknowledging it (an empty result, a cancel,
 * or a stream that closed; not the ack's time-out), as a failure of this call: left as it is, the
 * connection would take it for a broken transport and drop itself.
 */
function endedEarly(error: unknown): UpstreamError | undefined {
  if (!(error instanceof Error) || !/^subscriptions\/listen(:| closed before)/.test(error.message))
    return undefined;
  return new UpstreamError(
    `The server ended the subscriptions/listen stream before acknowledging it (${error.message}).`,
    'LISTEN_ENDED',
  );
}
