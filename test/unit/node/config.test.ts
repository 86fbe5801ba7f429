import {
  cniConfig,
  containerdConfig,
  kubeletConfig,
  kubeProxyConfig,
  NODE_NETWORK,
} from "../../../hack/node/config";
import { SERVICE_CIDR } from "../../../hack/cluster/control-plane";
import { ruleWords } from "../../../hack/node/node";

describe("node configuration", () => {
  it("runs the kubelet on cgroup v1 with cgroupfs against our containerd", () => {
    const config = JSON.parse(
      kubeletConfig({
        containerdSocket: "/s/containerd.sock",
        clientCaFile: "/ca.crt",
        nodeIp: NODE_NETWORK.gateway,
        port: 1,
        healthzPort: 2,
        podLogsDir: "/logs",
      }),
    );
    expect(config).toMatchObject({
      failCgroupV1: false,
      cgroupDriver: "cgroupfs",
      containerRuntimeEndpoint: "unix:///s/containerd.sock",
      authentication: { anonymous: { enabled: false } },
    });
  });

  it("gives containerd our runc, CNI dirs and sandbox image, with the cgroupfs driver", () => {
    const toml = containerdConfig({
      root: "/r",
      state: "/st",
      socket: "/st/c.sock",
      runc: "/bin/runc",
      runcRoot: "/st/runc",
      cniBinDir: "/bin/cni",
      cniConfDir: "/net.d",
      sandboxImage: "localhost/porch-pepr/pause:1",
    });
    expect(toml).toContain('sandbox = "localhost/porch-pepr/pause:1"');
    expect(toml).toContain('BinaryName = "/bin/runc"');
    expect(toml).toContain("SystemdCgroup = false");
    expect(toml).toContain('bin_dirs = ["/bin/cni"]');
    expect(toml).toContain('address = "/st/c.sock"');
  });

  it("puts Pods on the bridge's subnet with its address as their gateway", () => {
    const [bridge, portmap] = JSON.parse(cniConfig("/ipam")).plugins;
    expect(bridge).toMatchObject({ type: "bridge", bridge: NODE_NETWORK.bridge, isGateway: true });
    expect(bridge.ipam.ranges).toEqual([
      [{ subnet: NODE_NETWORK.podCidr, gateway: NODE_NETWORK.gateway }],
    ]);
    expect(portmap.type).toBe("portmap");
    expect(
      NODE_NETWORK.podCidr.startsWith(NODE_NETWORK.clusterCidr.split(".").slice(0, 2).join(".")),
    ).toBe(true);
  });

  it("runs kube-proxy in iptables mode and keeps the Pod and Service ranges apart", () => {
    const config = JSON.parse(
      kubeProxyConfig({ kubeconfig: "/k", nodeName: "n", healthzPort: 1, metricsPort: 2 }),
    );
    expect(config).toMatchObject({ mode: "iptables", clusterCIDR: NODE_NETWORK.clusterCidr });
    expect(SERVICE_CIDR.split(".").slice(0, 2)).not.toEqual(
      NODE_NETWORK.clusterCidr.split(".").slice(0, 2),
    );
  });
});

describe("ruleWords", () => {
  it("splits an iptables -S rule into arguments, a quoted comment as one", () => {
    expect(
      ruleWords('PREROUTING -m comment --comment "kubernetes service portals" -j KUBE-SERVICES'),
    ).toEqual([
      "PREROUTING",
      "-m",
      "comment",
      "--comment",
      "kubernetes service portals",
      "-j",
      "KUBE-SERVICES",
    ]);
  });
});
