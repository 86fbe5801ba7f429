import { PackageRevisionKind, PackageVariantKind } from "../../../crd-types/kinds";
import type { KubeObject, ResourceKind } from "../../../lib/cluster/port";

export type Obj = KubeObject & { spec?: Record<string, unknown>; status?: Record<string, unknown> };

// The generated CRD classes type metadata as the client library does; these tests need less.
export const PV = PackageVariantKind as unknown as ResourceKind<Obj>;
export const PR = PackageRevisionKind as unknown as ResourceKind<Obj>;
export const ref = { namespace: "ns", name: "pv" };

export const pv = (
  spec: Record<string, unknown> = { downstream: { repo: "d", package: "p" } },
): Obj => ({
  metadata: { ...ref, labels: { app: "x" } },
  spec,
});

/** What an `ApiError` with this status and reason matches. */
export const rejection = (status: number, reason: string) =>
  expect.objectContaining({ name: "ApiError", status, reason });
