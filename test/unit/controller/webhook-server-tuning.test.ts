import * as https from "node:https";
import {
  ADMISSION_REVIEW_LIMIT,
  outlastClientKeepAlive,
  readLargeAdmissionReviews,
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

it("makes the JSON parsers express creates read reviews beyond Pepr's 2 MB", () => {
  const asked: unknown[] = [];
  const express = { json: (options?: { limit?: string | number }) => asked.push(options) };
  readLargeAdmissionReviews(express);
  express.json({ limit: "2mb" });
  expect(asked).toEqual([{ limit: ADMISSION_REVIEW_LIMIT }]);
  const once = express.json;
  readLargeAdmissionReviews(express);
  expect(express.json).toBe(once);
});
