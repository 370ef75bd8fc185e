/**
 * The npm package as a user gets it: `npm pack` (whose prepack builds the web page and compiles the
 * daemon), installed into an empty folder, started with `npx inspector-daemon`, serving the web page
 * and health from the compiled daemon. Also what the tarball holds: no tests, fixtures or sources.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { defaultOptions } from '../../daemon/options.ts';
import { EVERYTHING, isAlive, ROOT } from '../daemon/helpers.ts';

const TOKEN = 'package-token-0123456789abcdef';
const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
};

/** The environment of the npm commands: none of the outer `npm test`'s own variables, nor the daemon's. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (/^npm_(lifecycle|package|command|config_(dry_run|json|ignore_scripts))/i.test(name)) continue;
    if (
      ['PORT', 'HOST', 'NODE_ENV', 'INSPECTOR_TOKEN', 'INSPECTOR_CONFIG', 'INSPECTOR_DATA_DIR'].includes(name)
    )
      continue;
    env[name] = value;
  }
  return env;
}

/** Runs npm with `args` in `cwd` and returns its stdout; a failure shows everything npm said. */
function npm(args: string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'npm',
      args,
      { cwd, env: cleanEnv(), maxBuffer: 64 * 1024 * 1024, timeout: 240_000 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`npm ${args.join(' ')} failed:\n${stdout}\n${stderr}`, { cause: error }));
        else resolve(stdout);
      },
    );
  });
}

/** Resolves with the daemon's address once `child` prints its listening line. */
function listeningUrl(child: ChildProcess, what: string): Promise<string> {
  let output = '';
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening line within 30 s:\n${output}`)), 30_000);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString('utf8');
      const match = /^inspector-daemon listening on (http:\/\/127\.0\.0\.1:\d+) \(production\)$/m.exec(
        output,
      );
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited ${code}:\n${output}`));
    });
  });
}

/** The processes under `pid` (children, theirs, …) with their arguments, from Linux's /proc. */
function descendantsOf(pid: number): Array<{ pid: number; ppid: number; argv: string[] }> {
  const all: Array<{ pid: number; ppid: number; argv: string[] }> = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').filter(Boolean);
      all.push({ pid: Number(entry), ppid, argv });
    } catch {
      // the process ended while we looked
    }
  }
  const found: typeof all = [];
  const parents = new Set([pid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const proc of all) {
      if (parents.has(proc.ppid) && !parents.has(proc.pid)) {
        parents.add(proc.pid);
        found.push(proc);
        grew = true;
      }
    }
  }
  return found;
}

/** Waits until none of `pids` is alive. */
async function expectGone(pids: number[]): Promise<void> {
  await vi.waitFor(() => expect(pids.filter(isAlive)).toEqual([]), { timeout: 10_000, interval: 100 });
}

let work = '';
let tarball = '';

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'inspector-package-'));
  await npm(['pack', '--pack-destination', work], ROOT);
  const [name] = (await readdir(work)).filter((file) => file.endsWith('.tgz'));
  if (!name) throw new Error(`npm pack wrote no tarball into ${work}`);
  tarball = join(work, name);
}, 300_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe('the npm package', () => {
  it('holds the bin, the compiled daemon, the web page, the README and the licence, and no tests or sources', async () => {
    // prepack already ran for the tarball above; the listing is the same without it.
    const [listing] = JSON.parse(
      await npm(['pack', '--dry-run', '--json', '--ignore-scripts'], ROOT),
    ) as Array<{
      files: Array<{ path: string }>;
    }>;
    const files = listing?.files.map((file) => file.path) ?? [];
    expect(files).toContain('bin/inspector-daemon.js');
    expect(files).toContain('dist/server/daemon/main.js');
    expect(files).toContain('dist/client/index.html');
    expect(files).toContain('README.md');
    expect(files).toContain('LICENSE');
    expect(files).toContain('package.json');
    const outside = files.filter(
      (path) =>
        !/^(bin\/|dist\/server\/daemon\/|dist\/client\/|README\.md$|package\.json$|LICENSE)/.test(path),
    );
    expect(outside).toEqual([]);
    expect(files.filter((path) => /(^|\/)(tests|fixtures|extension)\/|\.(ts|vue)$/.test(path))).toEqual([]);
  });

  it('computes the web page folder from source as the repository dist/client', () => {
    expect(defaultOptions().staticDir).toBe(join(ROOT, 'dist', 'client'));
  });

  describe('installed into an empty folder', () => {
    let app = '';
    let daemon: ChildProcess | undefined;
    let daemonUrl = '';

    beforeAll(async () => {
      // Its own package.json, so npm installs here and not into a folder above.
      app = join(work, 'app');
      await mkdir(app);
      await writeFile(join(app, 'package.json'), JSON.stringify({ name: 'empty-app', private: true }));
      // --prefer-offline: the dependencies usually sit in npm's cache already; a fresh machine fetches them.
      await npm(['install', '--prefer-offline', '--no-audit', '--no-fund', tarball], app);
    }, 300_000);

    afterAll(() => {
      // npx runs the bin in a child of its own: end whatever is left of the group this test started.
      if (!daemon?.pid) return;
      try {
        process.kill(-daemon.pid, 'SIGTERM');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
      }
    });

    it('runs without tsx: the bin starts the compiled daemon', () => {
      const installed = join(app, 'node_modules', PACKAGE.name);
      expect(existsSync(join(installed, 'dist/server/daemon/main.js'))).toBe(true);
      expect(existsSync(join(app, 'node_modules/tsx'))).toBe(false);
    });

    it('starts with npx, serves the built web page and answers health', async () => {
      const dataDir = join(work, 'data');
      daemon = spawn('npx', ['inspector-daemon', '--port', '0', '--data-dir', dataDir, '--token', TOKEN], {
        cwd: app,
        // The installed bin or nothing: npx must not fetch a package of that name from the registry.
        env: { ...cleanEnv(), npm_config_yes: 'false' },
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      });
      const url = await listeningUrl(daemon, 'npx inspector-daemon');
      daemonUrl = url;

      const builtIndex = readFileSync(
        join(app, 'node_modules', PACKAGE.name, 'dist/client/index.html'),
        'utf8',
      );
      const page = await fetch(`${url}/`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await page.text()).toBe(builtIndex);
      const script = /src="(\/assets\/[^"]+\.js)"/.exec(builtIndex)?.[1];
      expect(script).toBeDefined();
      const asset = await fetch(`${url}${script}`);
      expect(asset.status).toBe(200);
      expect(asset.headers.get('content-type')).toMatch(/javascript/);

      const health = await fetch(`${url}/api/mcp/health`);
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({
        status: 'ok',
        version: PACKAGE.version,
        mode: 'production',
      });
    });

    it('loads what it deferred once it listens, with no request to wake it', async () => {
      // Each module the daemon resolves is printed as it comes, on stdout as the listening line is (writes
      // to a pipe keep their order on Linux). No request is sent: only the daemon's own loading after
      // listening brings in ajv, the MCP client and the deferred packages.
      const hook = join(work, 'print-resolved.mjs');
      await writeFile(
        hook,
        `import { registerHooks } from 'node:module';
registerHooks({ resolve(specifier, context, next) {
  const result = next(specifier, context);
  process.stdout.write('resolved ' + result.url + '\\n');
  return result;
} });`,
      );
      const bin = join(app, 'node_modules', PACKAGE.name, 'bin/inspector-daemon.js');
      const dataDir = await mkdtemp(join(work, 'idle-data-'));
      const child = spawn(process.execPath, ['--import', hook, bin, '--port', '0', '--data-dir', dataDir], {
        env: cleanEnv(),
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      onTestFinished(() => {
        child.kill('SIGKILL');
      });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
      const wanted = [/\/ajv\/dist\/ajv\.js$/m, /\/chunks\/client-runtime-[^/]+\.js$/m, /\/deferred\.cjs$/m];
      await vi.waitFor(
        () => {
          for (const pattern of wanted) expect(output).toMatch(pattern);
        },
        // A second or so here; the loading left to sleep until some timer woke the daemon took 25 s.
        { timeout: 10_000, interval: 100 },
      );
      const listening = output.search(/^inspector-daemon listening on /m);
      expect(listening).toBeGreaterThan(0);
      for (const pattern of wanted) expect(output.search(pattern)).toBeGreaterThan(listening);
    });

    it('reads bodies and names file types with the packages it loads after listening', async () => {
      // body-parser and mime-types are not in the start module (scripts/build-daemon.js): a compressed
      // body goes through body-parser, with zlib and iconv-lite, and file types through mime-types.
      const url = daemonUrl;
      expect(url).toMatch(/^http:/);
      const headers = { 'X-Inspector-Token': TOKEN, 'Content-Type': 'application/json' };
      const config = { transport: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'] };
      const put = await fetch(`${url}/api/mcp/servers/gzipped`, {
        method: 'PUT',
        headers: { ...headers, 'Content-Encoding': 'gzip' },
        body: gzipSync(JSON.stringify({ config })),
      });
      expect(put.status).toBe(201);
      expect(await put.json()).toMatchObject({ id: 'gzipped', config });

      const utf16 = await fetch(`${url}/api/mcp/servers/utf16`, {
        method: 'PUT',
        headers: { ...headers, 'Content-Type': 'application/json; charset=utf-16le' },
        body: Buffer.from(JSON.stringify({ config }), 'utf16le'),
      });
      expect(utf16.status).toBe(415);
      expect(await utf16.json()).toMatchObject({ code: 'unsupported_encoding' });

      const call = await fetch(`${url}/api/mcp/tools/execute`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ serverId: 'gzipped', toolName: 'echo', parameters: { message: 'packed' } }),
      });
      expect(call.status).toBe(200);
      expect(await call.json()).toMatchObject({
        status: 'completed',
        result: { content: [{ type: 'text', text: 'Echo: packed' }] },
      });
      const removed = await fetch(`${url}/api/mcp/servers/gzipped`, { method: 'DELETE', headers });
      expect(removed.status).toBe(200);

      const builtIndex = readFileSync(
        join(app, 'node_modules', PACKAGE.name, 'dist/client/index.html'),
        'utf8',
      );
      const style = /href="(\/assets\/[^"]+\.css)"/.exec(builtIndex)?.[1];
      expect(style).toBeDefined();
      const css = await fetch(`${url}${style}`);
      expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
      await css.arrayBuffer();
    });

    it('stops the daemon when npx alone gets SIGTERM', async () => {
      // npx runs the bin under `sh -c`: the signal npm passes on ends the shell, and the daemon follows.
      const npx = daemon!;
      const [bin] = descendantsOf(npx.pid!).filter(
        ({ argv }) =>
          basename(argv[0] ?? '') === 'node' && argv.some((arg) => arg.endsWith('inspector-daemon')),
      );
      expect(bin).toBeDefined();
      const exited = new Promise((resolve) => npx.once('exit', resolve));
      process.kill(npx.pid!, 'SIGTERM');
      await exited;
      await expectGone([bin!.pid]);
    });
  });
});

describe('npm start', () => {
  let home = '';
  let config = '';

  beforeAll(async () => {
    // The repository's start script, copied into a folder where the builds it checks look done, so it
    // starts the daemon at once: its bin/ is a link to the repository's, which runs the dist/server the
    // pack above has just compiled.
    home = join(work, 'start');
    await mkdir(join(home, 'scripts'), { recursive: true });
    await copyFile(join(ROOT, 'scripts/start.js'), join(home, 'scripts/start.js'));
    await symlink(join(ROOT, 'bin'), join(home, 'bin'));
    for (const output of [
      '.output/chrome-mv3/manifest.json',
      'dist/client/index.html',
      'dist/server/daemon/main.js',
    ]) {
      await mkdir(dirname(join(home, output)), { recursive: true });
      await writeFile(join(home, output), '');
    }
    const scripts = { start: 'node scripts/start.js' };
    await writeFile(
      join(home, 'package.json'),
      JSON.stringify({ name: 'start-copy', type: 'module', scripts }),
    );
    config = join(home, 'servers.json');
    const everything = { command: process.execPath, args: [EVERYTHING, 'stdio'] };
    await writeFile(config, JSON.stringify({ mcpServers: { everything } }));
  });

  it.each([
    ['node scripts/start.js', process.execPath, ['scripts/start.js']],
    ['npm start', 'npm', ['start', '--']],
  ])('%s: SIGTERM stops the daemon and its MCP server', async (_, command, args) => {
    const dataDir = await mkdtemp(join(work, 'start-data-'));
    const child = spawn(
      command,
      [...args, '--port', '0', '--data-dir', dataDir, '--token', TOKEN, '--config', config],
      { cwd: home, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'], detached: true },
    );
    onTestFinished(() => {
      if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
    });
    const url = await listeningUrl(child, args.join(' '));
    const connect = await fetch(`${url}/api/mcp/servers/everything/connect`, {
      method: 'POST',
      headers: { 'X-Inspector-Token': TOKEN },
    });
    expect(connect.status).toBe(200);
    // The MCP server is the daemon's child: that names the daemon's process too.
    const [server] = descendantsOf(child.pid!).filter(({ argv }) => argv.includes(EVERYTHING));
    expect(server).toBeDefined();
    const daemonPid = server!.ppid;
    expect(isAlive(daemonPid)).toBe(true);

    const exited = new Promise((resolve) => child.once('exit', resolve));
    process.kill(child.pid!, 'SIGTERM');
    await exited;
    await expectGone([daemonPid, server!.pid]);
  });
});

describe('on a Node older than 22.19', () => {
  // This Node, made to say it is 20.1.0 before anything else runs (NODE_OPTIONS reaches npm's own Node
  // and the daemon's alike): what the version check reads is all that differs.
  let options: string;
  beforeAll(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'old-node-'));
    const module = join(dir, 'old-node.mjs');
    await writeFile(module, "Object.defineProperty(process.versions, 'node', { value: '20.1.0' });\n");
    options = `--import ${module}`;
    return () => rm(dir, { recursive: true, force: true });
  });

  it.each([
    ['npx inspector-daemon (the bin)', process.execPath, ['bin/inspector-daemon.js']],
    ['npm start', 'npm', ['start', '--']],
    ['npm run daemon', 'npm', ['run', 'daemon', '--']],
    ['npm run dev', 'npm', ['run', 'dev', '--']],
  ])('%s says so in one line and exits 1', async (_, command, args) => {
    const child = spawn(command, [...args, '--port', '0'], {
      cwd: ROOT,
      env: { ...cleanEnv(), NODE_OPTIONS: options },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 30_000,
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(code).toBe(1);
    expect(
      stderr
        .trim()
        .split('\n')
        .filter((line) => !line.startsWith('>')),
    ).toEqual(['inspector-daemon: needs Node.js 22.19 or newer (this is 20.1.0)']);
  });
});

describe('the tests beside this one', () => {
  it('run the daemon from source (DAEMON_COMMAND, or the factory), never the bin that runs a build', () => {
    // The package tests and the benchmarks measure the shipped build on purpose; the rest must not
    // depend on a build that could be stale.
    const files = readdirSync(join(ROOT, 'tests'), { recursive: true, encoding: 'utf8' }).filter(
      (path) => path.endsWith('.ts') && !path.startsWith('package/') && !path.startsWith('bench/'),
    );
    const spawningBuilds = files.filter((path) =>
      /bin\/inspector-daemon\.js|dist\/server/.test(readFileSync(join(ROOT, 'tests', path), 'utf8')),
    );
    expect(spawningBuilds).toEqual([]);
  });
});
