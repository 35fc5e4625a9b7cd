// Debian's Chromium, headless, driven over the DevTools protocol on a pipe (--remote-debugging-pipe:
// JSON messages ended by NUL on fds 3 and 4) — no npm package, no browser download, no port. Used by
// the report's browser lane (scripts/test-report-browser.mjs) and its screenshot (report-screens.mjs).
// Launched as the machine notes say (docs/design-notes.md): headless, no sandbox as root, no GPU,
// none of Chromium's own background traffic, a new empty profile; in a network namespace of its own
// with no interface up where the machine allows one (root + unshare), so nothing can leave.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];
export const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--hide-scrollbars', '--mute-audio'];

const found = () => CANDIDATES.find((path) => existsSync(path));

/**
 * The browser's path, installing Debian's `chromium` when it is missing and this is root with
 * apt-get; `{ missing }` says why there is none.
 */
export function ensureChromium(say) {
  if (found()) return { path: found() };
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!root || spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).status !== 0) return { missing: 'no Chromium at /usr/bin/chromium, and installing it needs root and apt-get' };
  say('installing Debian\'s chromium (apt-get install -y chromium)');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const update = spawnSync('apt-get', ['update', '-q'], { env, encoding: 'utf8' });
  const install = update.status === 0 ? spawnSync('apt-get', ['install', '-y', '-q', 'chromium'], { env, encoding: 'utf8' }) : update;
  if (install.status !== 0 || !found()) return { missing: `apt-get could not install chromium: ${(install.stderr || install.stdout || '').trim().split('\n').pop()}` };
  return { path: found() };
}

/** Whether this machine gives a process a network namespace of its own (root and unshare). */
export function canIsolateNetwork() {
  return spawnSync('unshare', ['--net', 'true'], { stdio: 'ignore' }).status === 0;
}

/**
 * Starts the browser; `send(method, params, sessionId)` resolves with the result, `events` collects
 * every event (method, params, sessionId). `offline`: inside a network namespace with no interface up.
 */
export async function launchChromium(path, { offline }) {
  const profile = mkdtempSync(join(tmpdir(), 'helix-chromium-'));
  const argv = [...CHROMIUM_FLAGS, `--user-data-dir=${profile}`, '--remote-debugging-pipe', 'about:blank'];
  const child = offline ? spawn('unshare', ['--net', path, ...argv], { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] }) : spawn(path, argv, { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
  const pending = new Map();
  const listeners = [];
  let nextId = 1;
  let buffered = '';
  child.stdio[4].on('data', (chunk) => {
    buffered += chunk.toString('utf8');
    let end;
    while ((end = buffered.indexOf('\0')) >= 0) {
      const message = JSON.parse(buffered.slice(0, end));
      buffered = buffered.slice(end + 1);
      if (message.id !== undefined) {
        const waiter = pending.get(message.id);
        pending.delete(message.id);
        if (message.error) waiter?.reject(new Error(`${waiter.method}: ${message.error.message}`));
        else waiter?.resolve(message.result);
      } else for (const listener of listeners) listener(message);
    }
  });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  exited.then(() => {
    for (const waiter of pending.values()) waiter.reject(new Error(`chromium exited: ${stderr.trim().split('\n').pop()}`));
  });
  const send = (method, params = {}, sessionId) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject, method });
      child.stdio[3].write(`${JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) })}\0`);
    });
  const close = async () => {
    if (child.exitCode === null) {
      send('Browser.close').catch(() => undefined);
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(profile, { recursive: true, force: true });
  };
  await send('Browser.getVersion');
  return { send, onEvent: (listener) => listeners.push(listener), close };
}

/**
 * Opens `url` in a new page of `width`×`height` and waits for its load; returns the session and
 * every request the page made (Network.requestWillBeSent), the document's own first.
 */
export async function openPage(browser, url, { width = 1280, height = 900 } = {}) {
  const { targetId } = await browser.send('Target.createTarget', { url: 'about:blank' });
  const { sessionId } = await browser.send('Target.attachToTarget', { targetId, flatten: true });
  const requests = [];
  let loaded;
  const load = new Promise((resolve) => (loaded = resolve));
  browser.onEvent((message) => {
    if (message.sessionId !== sessionId) return;
    if (message.method === 'Network.requestWillBeSent') requests.push(message.params.request.url);
    if (message.method === 'Network.webSocketCreated') requests.push(message.params.url);
    if (message.method === 'Page.loadEventFired') loaded();
  });
  await browser.send('Network.enable', {}, sessionId);
  await browser.send('Page.enable', {}, sessionId);
  await browser.send('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor: 1, mobile: false }, sessionId);
  await browser.send('Page.navigate', { url }, sessionId);
  await load;
  const evaluate = async (expression) => (await browser.send('Runtime.evaluate', { expression, returnByValue: true }, sessionId)).result.value;
  const screenshot = async (options = {}) => Buffer.from((await browser.send('Page.captureScreenshot', { format: 'png', ...options }, sessionId)).data, 'base64');
  return { sessionId, requests, evaluate, screenshot };
}

/** A PNG's size and how many distinct colours it has (Chromium's: 8-bit RGB or RGBA, not interlaced). */
export function pngColours(png) {
  const width = png.readUInt32BE(16);
  const height = png.readUInt32BE(20);
  const channels = { 2: 3, 6: 4 }[png[25]];
  if (png[24] !== 8 || !channels || png[28] !== 0) throw new Error(`not an 8-bit RGB(A) PNG (depth ${png[24]}, colour type ${png[25]})`);
  const idat = [];
  for (let at = 8; at < png.length; ) {
    const length = png.readUInt32BE(at);
    if (png.toString('latin1', at + 4, at + 8) === 'IDAT') idat.push(png.subarray(at + 8, at + 8 + length));
    at += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const colours = new Set();
  let previous = Buffer.alloc(stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const line = Buffer.from(raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1)));
    for (let i = 0; i < stride; i++) {
      const a = i >= channels ? line[i - channels] : 0;
      const b = previous[i];
      const c = i >= channels ? previous[i - channels] : 0;
      const p = a + b - c;
      const paeth = Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c) ? a : Math.abs(p - b) <= Math.abs(p - c) ? b : c;
      line[i] = (line[i] + [0, a, b, (a + b) >> 1, paeth][filter]) & 0xff;
    }
    for (let x = 0; x < stride; x += channels) colours.add((line[x] << 16) | (line[x + 1] << 8) | line[x + 2]);
    previous = line;
  }
  return { width, height, colours: colours.size };
}
