import * as https from "node:https";
import {
  outlastClientKeepAlive,
  WEBHOOK_KEEP_ALIVE_MS,
} from "../../../capabilities/shared/webhook-server-tuning";

// A stand-in for the `https` module object, so the test does not retune this worker's own.
const moduleLike = () => ({ createServer: https.createServer });

it("makes the servers it creates outlast the API server's 90 s idle connections", () => {
  const untuned = moduleLike().createServer();
  expect(untuned.keepAliveTimeout).toBeLessThan(90_000);

  const mod = moduleLike();
  outlastClientKeepAlive(mod);
  const server = mod.createServer();
  expect(server.keepAliveTimeout).toBe(WEBHOOK_KEEP_ALIVE_MS);
  expect(WEBHOOK_KEEP_ALIVE_MS).toBeGreaterThan(90_000);
});

it("wraps createServer once, however often it is applied", () => {
  const mod = moduleLike();
  outlastClientKeepAlive(mod);
  const once = mod.createServer;
  outlastClientKeepAlive(mod);
  expect(mod.createServer).toBe(once);
});
