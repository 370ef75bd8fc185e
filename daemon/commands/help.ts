/** The options every calling command takes to name its server, for their --help. */
export const SERVER_HELP = `  --json | --pretty    JSON (default when stdout is not a terminal) or readable text

SERVER is one of:
  --server ID          a server of the registry (<data-dir>/servers.json), or of --config FILE
  --config FILE        an mcpServers JSON file to take --server from
  --stdio "CMD ARGS"   a STDIO server (split as a shell would), with --env NAME=VALUE, --cwd DIR
  --url URL            a remote server, with --header 'Name: value' and --transport sse|http
and through a running daemon instead of in this process:
  --daemon URL         e.g. http://127.0.0.1:6274, with --server ID of the daemon's servers
  --token T            its token (default INSPECTOR_TOKEN, else <data-dir>/token)
  --data-dir DIR       registry and token folder (INSPECTOR_DATA_DIR; default ~/.config/inspector-daemon)
  --verbose            print the JSON-RPC messages and the server's stderr on stderr
  --timeout SECONDS    a tool call with no answer (nor progress) for this long fails (default 300)`;
