/**
 * The MCP shapes the extension shows, as the SDK declares them. Type-only: nothing of the SDK is bundled
 * by importing from here. What the daemon passes through unvalidated (a server may send anything) is
 * still checked where it is rendered.
 */
import type { ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';

export type {
  AudioContent,
  CallToolResult,
  ContentBlock,
  EmbeddedResource,
  GetPromptResult,
  Icon,
  ImageContent,
  Prompt,
  PromptArgument,
  PromptMessage,
  ReadResourceResult,
  Resource,
  ResourceLink,
  ResourceTemplate,
  TextContent,
  Tool,
  ToolAnnotations,
} from '@modelcontextprotocol/sdk/types.js';

/** One item of a `resources/read` result's `contents` (text or blob), as the SDK declares it. */
export type ResourceContents = ReadResourceResult['contents'][number];
