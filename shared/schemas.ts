/**
 * JSON schemas of every request body. The daemon validates with them (ajv); the extension reuses them.
 * Plain data only: no imports, so both runtimes can load this file.
 */
import { oauthSettingsSchema } from './oauth.ts';
import { SERVER_ID_PATTERN } from './servers.ts';
import { DISPLAY_MODES, WIDGET_TOOL_ID_PATTERN } from './widgets.ts';

const serverId = { type: 'string', pattern: SERVER_ID_PATTERN } as const;
const stringMap = { type: 'object', additionalProperties: { type: 'string' } } as const;
const nonEmpty = { type: 'string', minLength: 1 } as const;

export const serverRequestSchema = {
  type: 'object',
  required: ['serverId'],
  properties: { serverId },
} as const;

/** An MCP pagination cursor: opaque, passed back to the server as it gave it. */
const cursor = { type: 'string', minLength: 1, maxLength: 4096 } as const;
/** One page of a list (shared/api.ts ListPageOptions); neither field means every page. */
const listPage = { cursor, page: { enum: ['first'] } } as const;

export const listRequestSchema = {
  type: 'object',
  required: ['serverId'],
  properties: { serverId, ...listPage },
} as const;

/** The query of `GET /servers/:id/tools`, `/resources` and `/prompts`. */
export const listPageQuerySchema = {
  type: 'object',
  properties: listPage,
} as const;

export const executeRequestSchema = {
  type: 'object',
  required: ['serverId', 'toolName'],
  properties: {
    serverId,
    toolName: nonEmpty,
    parameters: { type: 'object' },
    timeoutMs: { type: 'integer', minimum: 1, maximum: 86_400_000 },
    task: {
      type: 'object',
      properties: { ttl: { type: 'integer', minimum: 0, maximum: 86_400_000 } },
    },
    runAsTask: { type: 'boolean' },
  },
} as const;

export const taskRequestSchema = {
  type: 'object',
  required: ['serverId', 'taskId'],
  properties: { serverId, taskId: nonEmpty },
} as const;

export const respondRequestSchema = {
  type: 'object',
  required: ['requestId', 'response'],
  properties: {
    requestId: nonEmpty,
    response: {
      type: 'object',
      required: ['action'],
      properties: {
        action: { enum: ['accept', 'decline', 'cancel'] },
        content: { type: 'object' },
      },
    },
  },
} as const;

const samplingContent = {
  type: 'object',
  required: ['type'],
  properties: { type: nonEmpty },
} as const;

/** The person's reply to `sampling/createMessage`: MCP's CreateMessageResult. */
export const samplingAnswerSchema = {
  type: 'object',
  required: ['role', 'content', 'model'],
  properties: {
    role: { enum: ['user', 'assistant'] },
    content: {
      oneOf: [samplingContent, { type: 'array', minItems: 1, items: samplingContent }],
    },
    model: nonEmpty,
    stopReason: { type: 'string' },
  },
} as const;

/**
 * The person's answer to a form `elicitation/create`: MCP's ElicitResult content, each value a string,
 * a number, a boolean or a list of strings. Nothing else can reach the server (the SDK refuses it).
 */
export const elicitationAnswerSchema = {
  type: 'object',
  additionalProperties: { type: ['string', 'number', 'boolean', 'array'], items: { type: 'string' } },
} as const;

export const cancelRequestSchema = {
  type: 'object',
  required: ['executionId'],
  properties: { executionId: nonEmpty },
} as const;

export const resourceReadRequestSchema = {
  type: 'object',
  required: ['serverId', 'uri'],
  properties: { serverId, uri: nonEmpty },
} as const;

export const promptGetRequestSchema = {
  type: 'object',
  required: ['serverId', 'name'],
  properties: {
    serverId,
    name: nonEmpty,
    args: { type: 'object', additionalProperties: { type: ['string', 'number', 'boolean', 'null'] } },
  },
} as const;

/** The eight syslog levels of MCP `logging/setLevel`, least severe first. */
export const LOGGING_LEVELS = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
] as const;

export const rootsRequestSchema = {
  type: 'object',
  required: ['roots'],
  additionalProperties: false,
  properties: {
    roots: {
      type: 'array',
      maxItems: 100,
      items: {
        type: 'object',
        required: ['uri'],
        additionalProperties: false,
        properties: {
          uri: { type: 'string', pattern: '^file://', maxLength: 4096 },
          name: { type: 'string', maxLength: 200 },
        },
      },
    },
  },
} as const;

export const loggingLevelRequestSchema = {
  type: 'object',
  required: ['level'],
  additionalProperties: false,
  properties: { level: { enum: LOGGING_LEVELS } },
} as const;

export const completeRequestSchema = {
  type: 'object',
  required: ['serverId', 'ref', 'argument'],
  additionalProperties: false,
  properties: {
    serverId,
    ref: {
      oneOf: [
        {
          type: 'object',
          required: ['type', 'name'],
          properties: { type: { const: 'ref/prompt' }, name: nonEmpty },
        },
        {
          type: 'object',
          required: ['type', 'uri'],
          properties: { type: { const: 'ref/resource' }, uri: nonEmpty },
        },
      ],
    },
    argument: {
      type: 'object',
      required: ['name', 'value'],
      additionalProperties: false,
      properties: { name: nonEmpty, value: { type: 'string' } },
    },
    context: {
      type: 'object',
      additionalProperties: false,
      properties: { arguments: stringMap },
    },
  },
} as const;

export const serverConfigSchema = {
  oneOf: [
    {
      type: 'object',
      required: ['transport', 'command'],
      additionalProperties: false,
      properties: {
        transport: { const: 'stdio' },
        command: nonEmpty,
        args: { type: 'array', items: { type: 'string' } },
        env: stringMap,
        cwd: nonEmpty,
        era: { enum: ['auto', 'legacy', 'modern'] },
      },
    },
    {
      type: 'object',
      required: ['transport', 'url'],
      additionalProperties: false,
      properties: {
        transport: { enum: ['sse', 'http', 'websocket'] },
        url: { type: 'string', pattern: '^(https?|wss?)://' },
        headers: stringMap,
        era: { enum: ['auto', 'legacy', 'modern'] },
        auth: oauthSettingsSchema,
      },
    },
  ],
} as const;

export const putServerRequestSchema = {
  type: 'object',
  required: ['config'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 200 },
    config: serverConfigSchema,
  },
} as const;

export const importServersRequestSchema = {
  type: 'object',
  required: ['mcpServers'],
  properties: {
    mcpServers: {
      type: 'object',
      propertyNames: { pattern: SERVER_ID_PATTERN },
      additionalProperties: { type: 'object' },
    },
  },
} as const;

export const toolCallRequestSchema = {
  type: 'object',
  properties: {
    parameters: { type: 'object' },
    timeoutMs: executeRequestSchema.properties.timeoutMs,
  },
} as const;

export const promptArgsRequestSchema = {
  type: 'object',
  properties: { args: promptGetRequestSchema.properties.args },
} as const;

export const widgetStoreRequestSchema = {
  type: 'object',
  required: ['serverId', 'uri', 'toolInput', 'toolOutput', 'toolId'],
  properties: {
    serverId,
    uri: { type: 'string', pattern: '^ui://.+' },
    toolInput: { type: 'object' },
    // Any JSON value: structuredContent, or null when the result has none.
    toolOutput: {},
    toolId: { type: 'string', pattern: WIDGET_TOOL_ID_PATTERN },
    toolResponseMetadata: { type: 'object' },
    globals: {
      type: 'object',
      additionalProperties: false,
      properties: {
        theme: { enum: ['light', 'dark'] },
        locale: { type: 'string', minLength: 1, maxLength: 35 },
        displayMode: { enum: DISPLAY_MODES },
        maxHeight: { type: ['number', 'null'], minimum: 0 },
        widgetState: {},
        // The host's device preview: the insets it leaves clear, the device type and its input.
        safeArea: {
          type: 'object',
          additionalProperties: false,
          required: ['insets'],
          properties: {
            insets: {
              type: 'object',
              additionalProperties: false,
              required: ['top', 'bottom', 'left', 'right'],
              properties: {
                top: { type: 'number', minimum: 0 },
                bottom: { type: 'number', minimum: 0 },
                left: { type: 'number', minimum: 0 },
                right: { type: 'number', minimum: 0 },
              },
            },
          },
        },
        userAgent: {
          type: 'object',
          additionalProperties: false,
          required: ['device', 'capabilities'],
          properties: {
            device: {
              type: 'object',
              additionalProperties: false,
              required: ['type'],
              properties: { type: { enum: ['desktop', 'mobile', 'tablet', 'unknown'] } },
            },
            capabilities: {
              type: 'object',
              additionalProperties: false,
              properties: { hover: { type: 'boolean' }, touch: { type: 'boolean' } },
            },
          },
        },
      },
    },
  },
} as const;
