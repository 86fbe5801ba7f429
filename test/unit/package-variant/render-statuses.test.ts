import {
  MAX_KEPT_STATUSES,
  MAX_KEPT_STATUS_BYTES,
  rememberRenderStatus,
} from "../../../capabilities/shared/render-statuses";
import type { PackageRevisionResources } from "../../../crd-types";
import { testOperator, type TestOperator } from "../../support/operator-context";

// The render statuses kept for variants' status are bounded: one per revision, small ones only,
// the least recently written dropped first (a status not kept is read from the API server).
let t: TestOperator;
beforeEach(async () => (t = await testOperator()));
afterEach(() => t.close());

const prr = (name: string, message: string): PackageRevisionResources =>
  ({
    metadata: { name, namespace: "team-a", resourceVersion: "7" },
    status: { renderStatus: { result: { items: [{ message }] } } },
  }) as unknown as PackageRevisionResources;

it("keeps small statuses, at most MAX_KEPT_STATUSES, dropping the least recently written", () => {
  for (let i = 0; i <= MAX_KEPT_STATUSES; i++) rememberRenderStatus(t.ctx, prr(`r${i}`, "ok"));
  const kept = t.ctx.caches.renderStatuses;
  expect(kept.size).toBe(MAX_KEPT_STATUSES);
  expect(kept.has("team-a/r0")).toBe(false);
  expect(kept.get(`team-a/r${MAX_KEPT_STATUSES}`)?.version).toBe("7");
});

it("does not keep a large status, and forgets the one it replaces", () => {
  rememberRenderStatus(t.ctx, prr("r", "ok"));
  rememberRenderStatus(t.ctx, prr("r", "x".repeat(MAX_KEPT_STATUS_BYTES)));
  expect(t.ctx.caches.renderStatuses.has("team-a/r")).toBe(false);
});
