// The daemon's entry point. From the repository it runs as source (`node --import tsx daemon/main.ts`:
// npm run daemon, npm run dev and the tests); the package's bin runs its compiled copy in dist/server.
import { main } from './cli.ts';

await main(process.argv.slice(2), process.env);
