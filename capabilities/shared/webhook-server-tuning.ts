import type { Server } from "node:https";

/**
 * The API server calls admission webhooks over kept-alive connections that it closes after
 * 90 s idle (client-go's transport defaults). Pepr's HTTPS server keeps Node's default of 5 s:
 * when Node closes an idle connection in the moment the API server sends a request on it, the
 * request dies with "connection reset by peer", and the webhook's failurePolicy (Fail) turns a
 * valid write into a 500 (seen under load in `npm run bench`). A server that keeps idle
 * connections longer than its client lets the client always close first, so there is no race.
 */
export const WEBHOOK_KEEP_ALIVE_MS = 120_000;

const TUNED = Symbol.for("porch-pepr.webhook-server-tuned");

interface HttpsModule {
  createServer: (...args: never[]) => Server;
}

/**
 * Makes every server the given `https` module creates keep idle connections for
 * WEBHOOK_KEEP_ALIVE_MS. Pepr creates its server through the module object at start, so the
 * wrapper must be in place before the module starts; applying it twice changes nothing.
 */
export function outlastClientKeepAlive(https: HttpsModule): void {
  const create = https.createServer as HttpsModule["createServer"] & { [TUNED]?: true };
  if (create[TUNED]) return;
  const tuned = (...args: never[]) => {
    const server = create.apply(https, args);
    server.keepAliveTimeout = WEBHOOK_KEEP_ALIVE_MS;
    return server;
  };
  https.createServer = Object.assign(tuned, { [TUNED]: true as const });
}
