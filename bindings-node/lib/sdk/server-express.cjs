'use strict';
/**
 * `oxmcp/server/express.js` (the TS SDK v1 path `@modelcontextprotocol/sdk/server/express.js`):
 * `createMcpExpressApp({ host, allowedHosts })`, an Express app with a JSON body parser.
 *
 * The SDK puts a Host check in front of the app; here the core makes that decision, as on every
 * oxmcp HTTP mount: the app carries what the SDK would have allowed, and a
 * `StreamableHTTPServerTransport` serving a request of this app hands it to the core's mount
 * (`allowedHosts`, or no Host check where the SDK has none). Express is the project's own (an
 * optional peer dependency, found beside oxmcp or beside the server: peers.cjs), loaded by the first call.
 */
const { EXPRESS_HOSTS } = require('./transports.cjs');
const { requirePeer } = require('../peers.cjs');

const LOOPBACK = ['127.0.0.1', 'localhost', '::1'];

function loadExpress() {
  try {
    // @ts-ignore express is an optional peer dependency: absent here, its types too.
    return requirePeer('express');
  } catch (e) {
    throw new Error('createMcpExpressApp needs express (npm install express)', { cause: e });
  }
}

function createMcpExpressApp(options = {}) {
  const { host = '127.0.0.1', allowedHosts } = options ?? {};
  const express = loadExpress();
  const app = express();
  let hosts;
  if (allowedHosts) {
    hosts = { allowedHosts: [...allowedHosts] };
  } else if (LOOPBACK.includes(host)) {
    hosts = {}; // the core's default: loopback names only
  } else {
    if (host === '0.0.0.0' || host === '::') {
      console.warn(`Warning: Server is binding to ${host} without DNS rebinding protection. `
        + 'Consider using the allowedHosts option to restrict allowed hosts, or use authentication to protect your server.');
    }
    hosts = { allowAnyHost: true };
  }
  Object.defineProperty(app, EXPRESS_HOSTS, { value: Object.freeze(hosts) });
  app.use(express.json());
  return app;
}

module.exports = { createMcpExpressApp };
