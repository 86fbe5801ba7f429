import { createHash } from "node:crypto";
import { packageVariantIdentifier, packageVariantName } from "../../../lib/package-variant-set";

describe("PackageVariant names", () => {
  it("uses a short identifier as it is", () => {
    const id = packageVariantIdentifier("my-pvs", "prod-repo", "my-package");
    expect(id).toBe("my-pvs-prod-repo-my-package");
    expect(packageVariantName(id)).toBe(id);
  });

  it("truncates a long identifier to 54 characters and appends the SHA-1 prefix", () => {
    const id = packageVariantIdentifier(
      "very-long-packagevariantset-name",
      "very-long-repo-name",
      "very-long-package-name",
    );
    // Porch's design text calls this identifier 76 characters long with hash a1b2c3d4; both are
    // wrong.
    expect(id).toHaveLength(75);
    const name = packageVariantName(id);
    expect(name).toBe("very-long-packagevariantset-name-very-long-repo-name-v-967492f1");
    expect(name).toHaveLength(63);
  });

  it("keeps an identifier of exactly 63 characters", () => {
    const id = "a".repeat(63);
    expect(packageVariantName(id)).toBe(id);
    expect(packageVariantName("a".repeat(64))).toHaveLength(63);
  });

  it("hashes a nested package path, which no name may hold", () => {
    const id = packageVariantIdentifier("set", "cluster-01", "apps/nginx");
    const hash = createHash("sha1").update(id).digest("hex").slice(0, 8);
    expect(packageVariantName(id)).toBe(`set-cluster-01-apps-nginx-${hash}`);
    expect(packageVariantName(packageVariantIdentifier("set", "cluster-01", "apps-nginx"))).toBe(
      "set-cluster-01-apps-nginx",
    );
  });
});
