/**
 * What the toolbar popup loads before it can show anything: the JS and CSS of the built `popup.html`.
 * It reads the page's module scripts, module preloads and style sheets, follows the static imports of
 * every script (`import … from "./x.js"`, `import "./x.js"`, `export … from "./x.js"`; dynamic `import()`
 * is loaded later, so it is left out) and prints each file's raw and gzip size (node:zlib, default level).
 *
 *   npm run bench:popup                                         # builds the extension first
 *   node --import tsx tests/bench/popup-bundle.ts [outputDir]   # default .output/chrome-mv3
 */
import { readFileSync } from 'node:fs';
import { join, posix, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const OUTPUT = resolve(ROOT, process.argv[2] ?? '.output/chrome-mv3');
const PAGE = 'popup.html';

interface Asset {
  /** Path inside the output directory, with forward slashes. */
  path: string;
  kind: 'js' | 'css';
  raw: number;
  gzip: number;
}

/** The value of one attribute in a tag's text, or undefined. */
function attribute(tag: string, name: string): string | undefined {
  const match = new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, 'i').exec(tag);
  return match ? (match[1] ?? match[2] ?? match[3]) : undefined;
}

/** A URL of the page (root-relative like `/chunks/x.js`, or relative to the page) as an output path. */
function fromPage(url: string): string {
  const path = url.split(/[?#]/)[0] ?? url;
  return path.startsWith('/') ? path.slice(1) : posix.normalize(path);
}

/** The scripts and style sheets `popup.html` names. */
function pageAssets(html: string): { scripts: string[]; styles: string[] } {
  const scripts: string[] = [];
  const styles: string[] = [];
  for (const [tag] of html.matchAll(/<script\b[^>]*>/gi)) {
    const src = attribute(tag, 'src');
    if (src && attribute(tag, 'type') === 'module') scripts.push(fromPage(src));
    else if (src) throw new Error(`${PAGE}: a classic script (${src}) is not followed`);
  }
  for (const [tag] of html.matchAll(/<link\b[^>]*>/gi)) {
    const rel = attribute(tag, 'rel')?.toLowerCase();
    const href = attribute(tag, 'href');
    if (!href) continue;
    if (rel === 'modulepreload') scripts.push(fromPage(href));
    else if (rel === 'stylesheet') styles.push(fromPage(href));
  }
  return { scripts, styles };
}

/** Relative specifiers of a built module's static imports and re-exports. */
const STATIC_IMPORT =
  /(?:^|[;}\s])(?:import|export)\s*(?:[\w$*{}\s,]*?\s*from\s*)?["'](\.{1,2}\/[^"']+)["']/g;

function staticImports(code: string): string[] {
  return [...code.matchAll(STATIC_IMPORT)].map((match) => match[1] as string);
}

function measure(path: string, kind: Asset['kind']): Asset {
  const bytes = readFileSync(join(OUTPUT, path));
  return { path, kind, raw: bytes.length, gzip: gzipSync(bytes).length };
}

/** Every module the page loads up front, each once, in the order found. */
function walkScripts(entries: string[]): string[] {
  const seen = new Set<string>();
  const queue = [...entries];
  for (let path = queue.shift(); path !== undefined; path = queue.shift()) {
    if (seen.has(path)) continue;
    seen.add(path);
    const code = readFileSync(join(OUTPUT, path), 'utf8');
    for (const specifier of staticImports(code)) queue.push(posix.join(posix.dirname(path), specifier));
  }
  return [...seen];
}

function kb(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KiB`.padStart(10);
}

function row(label: string, raw: number, gzip: number): string {
  return `${label.padEnd(48)} ${String(raw).padStart(8)} B ${kb(raw)}   gzip ${String(gzip).padStart(7)} B ${kb(gzip)}`;
}

/** Every JS and CSS file popup.html loads before it runs, with the totals. */
export function measurePopupBundle(): { assets: Asset[]; raw: number; gzip: number } {
  let html: string;
  try {
    html = readFileSync(join(OUTPUT, PAGE), 'utf8');
  } catch {
    throw new Error(`No ${PAGE} in ${OUTPUT}: build the extension first (npx wxt build)`);
  }
  const { scripts, styles } = pageAssets(html);
  if (scripts.length === 0) throw new Error(`${PAGE} loads no module script`);
  const assets = [
    ...walkScripts(scripts).map((path) => measure(path, 'js')),
    ...[...new Set(styles)].map((path) => measure(path, 'css')),
  ];
  return {
    assets,
    raw: assets.reduce((n, a) => n + a.raw, 0),
    gzip: assets.reduce((n, a) => n + a.gzip, 0),
  };
}

function main(): void {
  const { assets } = measurePopupBundle();
  console.log(`${PAGE} in ${relative(ROOT, OUTPUT) || '.'}: what it loads before it runs`);
  for (const asset of assets) console.log(row(asset.path, asset.raw, asset.gzip));
  const sum = (kind?: Asset['kind']): [number, number] => {
    const chosen = assets.filter((a) => kind === undefined || a.kind === kind);
    return [chosen.reduce((n, a) => n + a.raw, 0), chosen.reduce((n, a) => n + a.gzip, 0)];
  };
  console.log('-'.repeat(100));
  console.log(row('JS total', ...sum('js')));
  console.log(row('CSS total', ...sum('css')));
  console.log(row('JS + CSS total', ...sum()));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
