// Imported first by every way of starting the daemon (the package's command, `npm start`, `npm run
// daemon` and `npm run dev`): on a Node older than the daemon needs it says so in one line and exits,
// before anything that Node cannot run. Plain JavaScript that any Node parses.
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 19)) {
  console.error(`inspector-daemon: needs Node.js 22.19 or newer (this is ${process.versions.node})`);
  process.exit(1);
}
