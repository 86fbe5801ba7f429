import type { PackageRevisionResources } from "../../../crd-types";
import { omittedIdentity } from "../../../lib/packages/resources-identity";

const owner = {
  apiVersion: "porch.kpt.dev/v1alpha2",
  kind: "PackageRevision",
  name: "r.p.ws",
  uid: "u",
};
const stored = {
  metadata: {
    name: "r.p.ws",
    labels: { "porch.kpt.dev/repository": "r", team: "a" },
    ownerReferences: [owner],
  },
  spec: { packageName: "p", repository: "r", workspaceName: "ws", resources: { Kptfile: "old" } },
} as PackageRevisionResources;

describe("omittedIdentity", () => {
  it("keeps what porchctl rpkg push leaves out: spec identity, repository label, owner", () => {
    const pushed = {
      metadata: { name: "r.p.ws", resourceVersion: "7" },
      spec: { resources: { Kptfile: "new" } },
    } as PackageRevisionResources;
    expect(omittedIdentity(pushed, stored)).toEqual({
      spec: { packageName: "p", repository: "r", workspaceName: "ws" },
      metadata: { labels: { "porch.kpt.dev/repository": "r" }, ownerReferences: [owner] },
    });
  });

  it("leaves a complete update alone", () => {
    expect(omittedIdentity({ ...stored, spec: { ...stored.spec, resources: {} } }, stored)).toBe(
      undefined,
    );
  });
});
