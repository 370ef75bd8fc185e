/** The largest JSON-RPC message a STDIO server may send unless the daemon is told otherwise. */
export const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
