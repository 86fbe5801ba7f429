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

/**
 * The largest AdmissionReview Pepr's webhook server reads. Pepr parses at most 2 MB and answers
 * 413 beyond, which the API server turns into a 500 (failure policy Fail). The API server takes
 * requests up to 3 MiB and etcd stores objects up to 1.5 MiB; an edit's review carries both,
 * and Go's JSON may write a character of them as a six-byte escape (`\u003c`).
 */
export const ADMISSION_REVIEW_LIMIT = "32mb";

interface ExpressModule {
  json: (options?: { limit?: string | number }) => unknown;
}

/**
 * Makes the `express` module Pepr uses parse JSON bodies up to ADMISSION_REVIEW_LIMIT. Pepr
 * builds its parser through the module object when the module starts, so this must be
 * applied before; applying it twice changes nothing.
 */
export function readLargeAdmissionReviews(express: ExpressModule): void {
  const json = express.json as ExpressModule["json"] & { [TUNED]?: true };
  if (json[TUNED]) return;
  const tuned = (options?: { limit?: string | number }) =>
    json.call(express, { ...options, limit: ADMISSION_REVIEW_LIMIT });
  express.json = Object.assign(tuned, { [TUNED]: true as const });
}
