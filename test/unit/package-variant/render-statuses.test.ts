import { rememberRenderStatus } from "../../../capabilities/shared/render-statuses";
import type { PackageRevisionResources } from "../../../crd-types";
import {
  heapBytes,
  MAX_KEPT_STATUS_BYTES,
  MAX_KEPT_STATUSES_BYTES,
} from "../../../lib/package-revision/render-statuses";
import { testOperator, type TestOperator } from "../../support/operator-context";

// The render statuses kept for variants' status are bounded by the heap they take: one per
// revision, small ones only, the least recently written dropped first (a status not kept is read
// from the API server).
let t: TestOperator;
beforeEach(async () => (t = await testOperator()));
afterEach(() => t.close());

const prr = (name: string, renderStatus: unknown): PackageRevisionResources =>
  ({
    metadata: { name, namespace: "team-a", resourceVersion: "7" },
    status: { renderStatus },
  }) as unknown as PackageRevisionResources;
const clean = (message: string) => ({ result: { items: [{ message }] } });

it("keeps statuses within MAX_KEPT_STATUSES_BYTES, dropping the least recently written", () => {
  const each = heapBytes(clean("ok"));
  const fit = Math.floor(MAX_KEPT_STATUSES_BYTES / each);
  for (let i = 0; i <= fit; i++) rememberRenderStatus(t.ctx, prr(`r${i}`, clean("ok")));
  const kept = t.ctx.caches.renderStatuses;
  expect(kept.size).toBe(fit);
  expect(kept.bytes).toBeLessThanOrEqual(MAX_KEPT_STATUSES_BYTES);
  expect(kept.has("team-a/r0")).toBe(false);
  expect(kept.get(`team-a/r${fit}`)?.version).toBe("7");
});

it("does not keep a large status, and forgets the one it replaces", () => {
  rememberRenderStatus(t.ctx, prr("r", clean("ok")));
  rememberRenderStatus(t.ctx, prr("r", clean("x".repeat(MAX_KEPT_STATUS_BYTES / 2))));
  expect(t.ctx.caches.renderStatuses.has("team-a/r")).toBe(false);
});

// Counted by their JSON length, 10,000 statuses of 2 KiB of `{}` were kept: 432 MB of heap.
it("counts each object of a status, not only its text", () => {
  const empties = Array.from({ length: 680 }, () => ({}));
  expect(JSON.stringify(empties).length).toBeLessThan(2048);
  expect(heapBytes(empties)).toBeGreaterThan(680 * 64);
  for (let i = 0; i < 10_000; i++) rememberRenderStatus(t.ctx, prr(`r${i}`, empties));
  expect(t.ctx.caches.renderStatuses.bytes).toBeLessThanOrEqual(MAX_KEPT_STATUSES_BYTES);
  expect(t.ctx.caches.renderStatuses.size).toBeLessThan(10_000);
});
