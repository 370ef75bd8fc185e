import { mount } from '@vue/test-utils';
import { describe, expect, it } from 'vitest';
import { nextTick, reactive } from 'vue';
import OAuthFields from '../../extension/servers/OAuthFields.vue';
import {
  type AuthDraft,
  configFromDraft,
  draftFromConfig,
  emptyAuthDraft,
  emptyDraft,
  parseMcpServersJson,
  parsePairs,
  type ServerDraft,
} from '../../extension/servers/server-form';
import type { RemoteServerConfig } from '../../shared/servers';

describe('server editor fields', () => {
  it('turns a STDIO draft into a config with one argument per line and KEY=value env', () => {
    const draft = {
      ...emptyDraft(),
      id: 'everything',
      command: ' npx ',
      args: '-y\n@modelcontextprotocol/server-everything\n\n',
      env: 'API_KEY=abc=def\nDEBUG=1',
      cwd: '/tmp',
    };
    expect(configFromDraft(draft)).toEqual({
      problems: [],
      config: {
        transport: 'stdio',
        command: 'npx',
        args: ['-y', '@modelcontextprotocol/server-everything'],
        env: { API_KEY: 'abc=def', DEBUG: '1' },
        cwd: '/tmp',
      },
    });
  });

  it('turns a remote draft into a config with Name: value headers', () => {
    const draft = {
      ...emptyDraft(),
      id: 'remote',
      transport: 'sse' as const,
      url: 'http://localhost:3001/sse',
      headers: 'Authorization: Bearer x:y',
    };
    expect(configFromDraft(draft).config).toEqual({
      transport: 'sse',
      url: 'http://localhost:3001/sse',
      headers: { Authorization: 'Bearer x:y' },
    });
  });

  it('lists every problem: a bad id, a missing command, an env line without =', () => {
    const { config, problems } = configFromDraft({ ...emptyDraft(), id: '-bad id', env: 'NOVALUE' });
    expect(config).toBeUndefined();
    expect(problems).toEqual([
      'Id: letters, digits, ".", "_" or "-", starting with a letter or digit',
      'Command is required',
      'Environment: "NOVALUE" has no "="',
    ]);
  });

  it('refuses a URL that is not http or https', () => {
    const draft = { ...emptyDraft(), id: 'x', transport: 'http' as const, url: 'file:///etc/passwd' };
    expect(configFromDraft(draft).problems).toEqual(['URL must start with http:// or https://']);
  });

  it('round-trips a stored config through the editor unchanged', () => {
    const config = {
      transport: 'stdio' as const,
      command: 'node',
      args: ['server.js', '--port', '1'],
      env: { TOKEN: '********' },
    };
    const draft = draftFromConfig('srv', 'My server', config);
    expect(draft.name).toBe('My server');
    expect(configFromDraft(draft).config).toEqual(config);
  });

  it('keeps a WebSocket server a WebSocket server, with its headers and era', () => {
    const config = {
      transport: 'websocket' as const,
      url: 'ws://localhost:3001/',
      headers: { 'X-Key': '********' },
      era: 'legacy' as const,
    };
    const draft = draftFromConfig('ws', 'ws', config);
    expect(draft).toMatchObject({ transport: 'websocket', era: 'legacy' });
    expect(configFromDraft(draft).config).toEqual(config);
    expect(configFromDraft({ ...draft, url: 'http://localhost:3001/' }).problems).toEqual([
      'URL must start with ws:// or wss://',
    ]);
  });

  it('stores the era only when it is not auto, the default', () => {
    const draft = { ...emptyDraft(), id: 'x', command: 'node' };
    expect(draft.era).toBe('auto');
    expect(configFromDraft(draft).config).toEqual({ transport: 'stdio', command: 'node' });
    expect(configFromDraft({ ...draft, era: 'modern' }).config).toEqual({
      transport: 'stdio',
      command: 'node',
      era: 'modern',
    });
    expect(draftFromConfig('x', 'x', { transport: 'http', url: 'http://h/mcp' }).era).toBe('auto');
  });

  it('parses pairs and names the lines it cannot read', () => {
    expect(parsePairs('A: 1\nbroken\n: x', ':')).toEqual({
      values: { A: '1' },
      problems: ['"broken" has no ":"', '": x" has no ":"'],
    });
  });
});

describe('pasted mcpServers JSON', () => {
  it('accepts the full file shape and the inner map alone', () => {
    const inner = { everything: { command: 'npx' } };
    expect(parseMcpServersJson(JSON.stringify({ mcpServers: inner })).mcpServers).toEqual(inner);
    expect(parseMcpServersJson(JSON.stringify(inner)).mcpServers).toEqual(inner);
  });

  it('explains invalid JSON and an empty map', () => {
    expect(parseMcpServersJson('{ nope').problem).toMatch(/^Not valid JSON/);
    expect(parseMcpServersJson('{"mcpServers":{}}').problem).toMatch(/at least one server/);
    expect(parseMcpServersJson('[1]').problem).toBe('Expected a JSON object');
  });
});

describe("the editor's OAuth section", () => {
  const remote = (auth: Partial<AuthDraft>, transport: ServerDraft['transport'] = 'http'): ServerDraft => ({
    ...emptyDraft(),
    id: 'remote',
    transport,
    url: 'https://mcp.example.com/mcp',
    auth: { ...emptyAuthDraft(), enabled: true, ...auth },
  });
  const authOf = (draft: ServerDraft) => (configFromDraft(draft).config as RemoteServerConfig).auth;
  const problemsOf = (auth: Partial<AuthDraft>) => configFromDraft(remote(auth)).problems;

  it('sends no auth while it is off, and an empty one (sign in, registering itself) when on untouched', () => {
    expect(authOf({ ...remote({}), auth: emptyAuthDraft() })).toBeUndefined();
    expect(
      authOf({ ...remote({ clientId: 'typed-then-turned-off' }), auth: emptyAuthDraft() }),
    ).toBeUndefined();
    expect(authOf(remote({}))).toEqual({});
    expect(authOf(remote({}, 'sse'))).toEqual({});
  });

  it('sends only the settings the grant uses, scopes split on any space', () => {
    const auth = authOf(
      remote({
        grant: 'client_credentials',
        clientId: ' machine ',
        clientSecret: 's3cret',
        scopes: ' mcp:tools  mcp:admin\nread ',
        dpop: true,
        // Typed under another grant, then left: not the client credentials grant's.
        clientMetadataUrl: 'https://example.com/client.json',
        assertion: 'a.b.c',
        idpUrl: 'https://idp.example.com',
      }),
    );
    expect(auth).toEqual({
      grant: 'client_credentials',
      clientId: 'machine',
      clientSecret: 's3cret',
      scopes: ['mcp:tools', 'mcp:admin', 'read'],
      dpop: true,
    });
  });

  it('keeps the grant out when it is the default, and a PEM key with its algorithm', () => {
    const pem = '-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----';
    expect(authOf(remote({ clientId: 'pre', privateKey: `${pem}\n`, signingAlgorithm: 'ES256' }))).toEqual({
      clientId: 'pre',
      privateKey: pem,
      signingAlgorithm: 'ES256',
    });
    expect(authOf(remote({ clientId: 'pre', signingAlgorithm: 'ES256' }))).toEqual({ clientId: 'pre' });
    expect(authOf(remote({ clientMetadataUrl: 'https://example.com/client.json' }))).toEqual({
      clientMetadataUrl: 'https://example.com/client.json',
    });
  });

  it('round-trips stored settings with masked secrets, so a save keeps the stored ones', () => {
    const config: RemoteServerConfig = {
      transport: 'http',
      url: 'https://mcp.example.com/mcp',
      auth: {
        grant: 'token_exchange',
        clientId: 'mcp-client',
        clientSecret: '********',
        privateKey: '********',
        idpUrl: 'https://idp.example.com',
        idpClientId: 'inspector',
        idpClientSecret: '********',
        idToken: '********',
        scopes: ['mcp:tools'],
      },
    };
    const draft = draftFromConfig('remote', 'remote', config);
    expect(draft.auth).toMatchObject({ enabled: true, grant: 'token_exchange', scopes: 'mcp:tools' });
    expect(configFromDraft(draft, config)).toEqual({ config, problems: [] });
    const jwt = {
      transport: 'sse' as const,
      url: 'http://h/sse',
      auth: { grant: 'jwt_bearer' as const, assertion: '********' },
    };
    expect(configFromDraft(draftFromConfig('j', 'j', jwt), jwt).config).toEqual(jwt);
  });

  it('says which masked secret a save would lose: another server address, client or IdP', () => {
    const stored: RemoteServerConfig = {
      transport: 'http',
      url: 'https://mcp.example.com/mcp',
      auth: {
        grant: 'token_exchange',
        clientId: 'mcp-client',
        clientSecret: '********',
        idpUrl: 'https://idp.example.com',
        idpClientId: 'inspector',
        idToken: '********',
      },
    };
    const draft = draftFromConfig('remote', 'remote', stored);
    const problems = (change: Partial<ServerDraft>, auth: Partial<AuthDraft> = {}) =>
      configFromDraft({ ...draft, ...change, auth: { ...draft.auth, ...auth } }, stored).problems;
    // Untouched, or only the path or scopes changed: the stored secrets are kept.
    expect(problems({ url: 'https://mcp.example.com/v2/mcp' }, { scopes: 'more' })).toEqual([]);
    expect(problems({}, { idpClientId: 'other' })).toEqual([
      'ID token: type it again: the stored one is kept only with the same server address, client id and IdP',
    ]);
    expect(problems({ url: 'https://elsewhere.example.com/mcp' })).toEqual([
      'Client secret: type it again: the stored one is kept only with the same server address and client id',
      'ID token: type it again: the stored one is kept only with the same server address, client id and IdP',
    ]);
    // Typed again, nothing is lost; a new server has nothing stored to keep.
    expect(
      problems({ url: 'https://elsewhere.example.com/mcp' }, { clientSecret: 's', idToken: 'h.p.s' }),
    ).toEqual([]);
    expect(configFromDraft(draft).problems).toHaveLength(2);
  });

  it('never sends auth to a WebSocket server, which the daemon refuses it for', () => {
    const draft = { ...remote({ clientId: 'x' }, 'websocket'), url: 'wss://mcp.example.com/' };
    expect(configFromDraft(draft)).toEqual({
      config: { transport: 'websocket', url: 'wss://mcp.example.com/' },
      problems: [],
    });
  });

  it("names what each grant lacks, by the field's label", () => {
    expect(problemsOf({ grant: 'client_credentials' })).toEqual([
      'Client id is required for client_credentials',
      'Client secret is required for client_credentials (or Private key for private_key_jwt)',
    ]);
    expect(problemsOf({ grant: 'jwt_bearer' })).toEqual([
      'Assertion is required for jwt_bearer: the JWT to present',
    ]);
    expect(problemsOf({ grant: 'token_exchange', clientId: 'c' })).toEqual([
      "ID token is required for token_exchange: the person's ID token from the IdP",
      "IdP client id is required for token_exchange: the daemon's client id at the IdP",
      'IdP issuer URL is required for token_exchange (or IdP token endpoint)',
    ]);
    expect(problemsOf({ clientSecret: 'orphan' })).toEqual([
      'Client id is required with Client secret or Private key',
    ]);
  });

  it("checks each value against the daemon's pattern for it before sending", () => {
    expect(problemsOf({ clientMetadataUrl: 'http://example.com/client.json' })).toEqual([
      'Client metadata URL must be an https:// URL with a path, such as https://example.com/client.json',
    ]);
    expect(problemsOf({ clientId: 'c', privateKey: 'MIIEvQ…', signingAlgorithm: 'RS-256' })).toEqual([
      'Private key must be a PEM key starting with -----BEGIN PRIVATE KEY-----',
      'Signing algorithm must be a JWS algorithm name such as RS256, ES256, PS256 or EdDSA',
    ]);
    expect(problemsOf({ grant: 'jwt_bearer', assertion: 'not a jwt' })).toEqual([
      'Assertion must be a JWT (three base64url parts separated by ".")',
    ]);
    expect(
      problemsOf({
        grant: 'token_exchange',
        clientId: 'c',
        idpUrl: 'idp.example.com',
        idpClientId: 'i',
        idToken: 'h.p.s',
      }),
    ).toEqual(['IdP issuer URL must be an http:// or https:// URL']);
    expect(problemsOf({ scopes: 'ok "quoted"' })).toEqual([
      'Scopes: ""quoted"" is not a scope (printable ASCII, without " or \\)',
    ]);
  });
});

describe("the OAuth section's fields", () => {
  const fieldsOf = (wrapper: ReturnType<typeof mount>) =>
    wrapper.findAll('[data-testid^="editor-oauth-"]').map((el) => el.attributes('data-testid'));

  it('shows the settings of the chosen grant, each labelled, secrets in password boxes', async () => {
    const auth = reactive({ ...emptyAuthDraft(), enabled: true });
    const wrapper = mount(OAuthFields, { props: { modelValue: auth } });
    await wrapper.find('[data-testid="editor-oauth-grant"]').setValue('client_credentials');
    expect(auth.grant).toBe('client_credentials');
    expect(fieldsOf(wrapper)).toEqual([
      'editor-oauth-enabled',
      'editor-oauth-grant',
      'editor-oauth-clientId',
      'editor-oauth-clientSecret',
      'editor-oauth-privateKey',
      'editor-oauth-scopes',
      'editor-oauth-dpop',
    ]);
    await wrapper.find('[data-testid="editor-oauth-grant"]').setValue('token_exchange');
    expect(fieldsOf(wrapper)).toEqual(
      expect.arrayContaining(['editor-oauth-idpUrl', 'editor-oauth-idpClientSecret', 'editor-oauth-idToken']),
    );
    expect(fieldsOf(wrapper)).not.toContain('editor-oauth-clientMetadataUrl');
    for (const secret of ['clientSecret', 'idpClientSecret', 'idToken']) {
      expect(wrapper.find(`[data-testid="editor-oauth-${secret}"]`).attributes('type')).toBe('password');
    }
    // Every field has a label pointing at it.
    for (const input of wrapper.findAll('input:not([type="checkbox"]), select, textarea')) {
      expect(wrapper.find(`label[for="${input.attributes('id')}"]`).exists()).toBe(true);
    }
  });

  it('asks for the signing algorithm once a key is given, and says masked secrets are kept', async () => {
    const auth = reactive({ ...emptyAuthDraft(), enabled: true, clientId: 'c', clientSecret: '********' });
    const wrapper = mount(OAuthFields, { props: { modelValue: auth } });
    expect(wrapper.find('[data-testid="editor-oauth-signingAlgorithm"]').exists()).toBe(false);
    expect(wrapper.find('[data-testid="editor-oauth-masked"]').exists()).toBe(true);
    await wrapper.find('[data-testid="editor-oauth-privateKey"]').setValue('-----BEGIN PRIVATE KEY-----');
    await nextTick();
    expect(wrapper.find('[data-testid="editor-oauth-signingAlgorithm"]').exists()).toBe(true);
  });

  it('shows nothing but the switch while off', () => {
    const wrapper = mount(OAuthFields, { props: { modelValue: emptyAuthDraft() } });
    expect(fieldsOf(wrapper)).toEqual(['editor-oauth-enabled']);
  });
});
