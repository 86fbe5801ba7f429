// The node's configuration files, as pure functions of where things are (tested in
// test/unit/node/config.test.ts). Kubernetes components read JSON as YAML, so they get JSON.

/**
 * Pod network of the one local node. The addresses live on a bridge and in network namespaces
 * this node creates on this machine; nothing is routed off it. The bridge's own address (the
 * Pods' gateway) is also the node's and the API server's address, so Pods reach both directly.
 */
export const NODE_NETWORK = {
  bridge: "porchpepr0",
  clusterCidr: "10.244.0.0/16",
  podCidr: "10.244.0.0/24",
  gateway: "10.244.0.1",
  prefix: 24,
} as const;

export interface ContainerdPaths {
  /** containerd's root (content, snapshots) and state (sockets, netns mounts). */
  root: string;
  state: string;
  socket: string;
  runc: string;
  /** runc's state (its default is under /run/containerd). */
  runcRoot: string;
  cniBinDir: string;
  cniConfDir: string;
  /** The sandbox image, imported before any Pod starts (no registry to pull it from). */
  sandboxImage: string;
}

const q = (s: string) => JSON.stringify(s);

/** containerd 2.x config (version 3): own root, state and socket; the CRI plugin on runc + CNI. */
export function containerdConfig(p: ContainerdPaths): string {
  return `version = 3
root = ${q(p.root)}
state = ${q(p.state)}
# NRI would listen on a fixed host path; the node has no NRI plugins.
disabled_plugins = ["io.containerd.nri.v1.nri"]

[grpc]
  address = ${q(p.socket)}

[ttrpc]
  address = ${q(`${p.socket}.ttrpc`)}

[plugins.'io.containerd.internal.v1.opt']
  path = ${q(`${p.root}/opt`)}

[plugins.'io.containerd.cri.v1.images']
  snapshotter = 'overlayfs'
  [plugins.'io.containerd.cri.v1.images'.pinned_images]
    sandbox = ${q(p.sandboxImage)}

[plugins.'io.containerd.cri.v1.runtime']
  # Network namespaces under our state directory, not /var/run/netns.
  netns_mounts_under_state_dir = true
  # Lowering a process's oom_score_adj needs CAP_SYS_RESOURCE, which some sandboxes (this
  # project's machines) leave out of the bounding set: runc's write of -998 for the pause
  # container fails with EACCES. Clamp to no lower than containerd's own score instead.
  restrict_oom_score_adj = true
  [plugins.'io.containerd.cri.v1.runtime'.containerd]
    default_runtime_name = 'runc'
    [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc]
      runtime_type = 'io.containerd.runc.v2'
      # The sandbox image is imported, never pulled.
      disable_pause_image_pull = true
      [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc.options]
        BinaryName = ${q(p.runc)}
        Root = ${q(p.runcRoot)}
        # The kubelet uses the cgroupfs driver (no systemd here); the two must agree.
        SystemdCgroup = false
  [plugins.'io.containerd.cri.v1.runtime'.cni]
    bin_dirs = [${q(p.cniBinDir)}]
    conf_dir = ${q(p.cniConfDir)}

[plugins.'io.containerd.grpc.v1.cri']
  stream_server_address = '127.0.0.1'
  stream_server_port = '0'
`;
}

/** bridge + host-local on the node's Pod CIDR, then portmap (hostPort). */
export function cniConfig(ipamDataDir: string): string {
  const { bridge, podCidr, gateway } = NODE_NETWORK;
  return JSON.stringify(
    {
      cniVersion: "1.0.0",
      name: "porch-pepr",
      plugins: [
        {
          type: "bridge",
          bridge,
          isGateway: true,
          // Pods talk to this machine only (API server, Services); nothing to masquerade.
          ipMasq: false,
          hairpinMode: true,
          ipam: {
            type: "host-local",
            ranges: [[{ subnet: podCidr, gateway }]],
            routes: [{ dst: "0.0.0.0/0" }],
            dataDir: ipamDataDir,
          },
        },
        { type: "portmap", capabilities: { portMappings: true } },
      ],
    },
    null,
    2,
  );
}

export interface KubeletPaths {
  containerdSocket: string;
  clientCaFile: string;
  nodeIp: string;
  port: number;
  healthzPort: number;
  podLogsDir: string;
}

/** KubeletConfiguration for a node on cgroup v1 with cgroupfs, no swap limits, no DNS. */
export function kubeletConfig(p: KubeletPaths): string {
  return JSON.stringify(
    {
      apiVersion: "kubelet.config.k8s.io/v1beta1",
      kind: "KubeletConfiguration",
      // Kubernetes >= 1.35 refuses cgroup v1 unless told (KEP-5573); this machine has v1.
      failCgroupV1: false,
      cgroupDriver: "cgroupfs",
      containerRuntimeEndpoint: `unix://${p.containerdSocket}`,
      address: p.nodeIp,
      port: p.port,
      readOnlyPort: 0,
      healthzBindAddress: "127.0.0.1",
      healthzPort: p.healthzPort,
      // The API server's kubelet client (logs, exec) is checked against the cluster's CA and
      // authorized by the API server; nobody anonymous.
      authentication: {
        anonymous: { enabled: false },
        webhook: { enabled: true },
        x509: { clientCAFile: p.clientCaFile },
      },
      authorization: { mode: "Webhook" },
      clusterDomain: "cluster.local",
      podLogsDir: p.podLogsDir,
      failSwapOn: false,
      // A throwaway node on a shared disk: evict only when nearly out, never collect images
      // (they were imported, not pulled: nothing could bring them back).
      evictionHard: {
        "memory.available": "100Mi",
        "nodefs.available": "1%",
        "imagefs.available": "1%",
        "nodefs.inodesFree": "1%",
      },
      imageGCHighThresholdPercent: 100,
      imageGCLowThresholdPercent: 99,
    },
    null,
    2,
  );
}

export interface KubeProxyPaths {
  kubeconfig: string;
  nodeName: string;
  healthzPort: number;
  metricsPort: number;
}

/** KubeProxyConfiguration: iptables mode, leaving the host's conntrack sysctls alone. */
export function kubeProxyConfig(p: KubeProxyPaths): string {
  return JSON.stringify(
    {
      apiVersion: "kubeproxy.config.k8s.io/v1alpha1",
      kind: "KubeProxyConfiguration",
      mode: "iptables",
      clientConnection: { kubeconfig: p.kubeconfig },
      hostnameOverride: p.nodeName,
      clusterCIDR: NODE_NETWORK.clusterCidr,
      healthzBindAddress: `127.0.0.1:${p.healthzPort}`,
      metricsBindAddress: `127.0.0.1:${p.metricsPort}`,
      // Zero: keep the machine's conntrack table size and timeouts (kube-proxy sets them else).
      conntrack: {
        maxPerCore: 0,
        min: 0,
        tcpEstablishedTimeout: "0s",
        tcpCloseWaitTimeout: "0s",
      },
      // NodePorts on 127.0.0.1 would need route_localnet on every interface.
      iptables: { localhostNodePorts: false },
    },
    null,
    2,
  );
}

/** KubeSchedulerConfiguration: one scheduler, no leader election. */
export function schedulerConfig(kubeconfig: string): string {
  return JSON.stringify(
    {
      apiVersion: "kubescheduler.config.k8s.io/v1",
      kind: "KubeSchedulerConfiguration",
      clientConnection: { kubeconfig },
      leaderElection: { leaderElect: false },
    },
    null,
    2,
  );
}
