import type { CertFiles } from "../../../hack/cluster/certs";
import { apiserverAddressing, controllerFlags } from "../../../hack/cluster/control-plane";

const certs = { adminCert: "/admin.crt", adminKey: "/admin.key", caCert: "/ca.crt" } as CertFiles;

describe("control plane flags", () => {
  it("keeps the embedded default: loopback, no endpoint reconciler, RBAC, 3 controllers", () => {
    expect(apiserverAddressing(certs)).toEqual([
      "--bind-address=127.0.0.1",
      "--advertise-address=127.0.0.1",
      "--endpoint-reconciler-type=none",
      "--authorization-mode=RBAC",
      "--enable-admission-plugins=OwnerReferencesPermissionEnforcement",
    ]);
    expect(controllerFlags(certs)).toEqual([
      "--controllers=garbage-collector-controller,namespace-controller,serviceaccount-controller",
    ]);
  });

  it("serves a node on its address, with the Node authorizer and every default controller", () => {
    const flags = apiserverAddressing(certs, { address: "10.244.0.1" });
    expect(flags).toEqual(
      expect.arrayContaining([
        "--bind-address=10.244.0.1",
        "--advertise-address=10.244.0.1",
        "--authorization-mode=Node,RBAC",
        "--enable-admission-plugins=NodeRestriction,OwnerReferencesPermissionEnforcement",
        "--kubelet-client-certificate=/admin.crt",
      ]),
    );
    expect(flags.some(f => f.startsWith("--endpoint-reconciler-type"))).toBe(false);
    expect(controllerFlags(certs, { address: "10.244.0.1" })).toEqual([
      "--controllers=*",
      "--root-ca-file=/ca.crt",
    ]);
  });
});
