// Loaded with `--import` into both runs of a server (on the SDK and on oxmcp), so that the two
// runs differ only in the framework:
// - the SDK's example servers listen on fixed ports (3000, 3001, 8000) on every interface; the
//   harness gives each run a free port on 127.0.0.1 (UPSTREAM_PORT), whatever port the file names;
// - Math.random is a seeded generator (UPSTREAM_SEED), so an example that makes up its data
//   (a random forecast) makes up the same data in both runs.
import net from 'node:net';

let port = Number(process.env.UPSTREAM_PORT);
if (port) {
  const listen = net.Server.prototype.listen;
  net.Server.prototype.listen = function listenOnHarnessPort(...args) {
    // The first listener gets the harness's port; any other (a demo's second server) a free one.
    if (typeof args[0] === 'number' || (typeof args[0] === 'string' && /^\d+$/.test(args[0]))) {
      const rest = args.slice(1).filter((a) => typeof a === 'function');
      const p = port;
      port = 0;
      return listen.call(this, p, '127.0.0.1', ...rest);
    }
    if (args[0] && typeof args[0] === 'object' && 'port' in args[0]) {
      const p = port;
      port = 0;
      return listen.call(this, { ...args[0], port: p, host: '127.0.0.1' }, ...args.slice(1));
    }
    return listen.apply(this, args);
  };
}

let seed = Number(process.env.UPSTREAM_SEED ?? 1) >>> 0;
Math.random = function seededRandom() {
  // mulberry32
  seed = (seed + 0x6d2b79f5) >>> 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
