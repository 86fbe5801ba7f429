// The resource-merge scenarios of research/field.md §5 as data: local and upstream edits of
// the fixture package and the expected result. Used by the unit tests and for comparing with
// the kpt binary.
import type { Edit } from "./fixtures";

export interface Expectation {
  file: string;
  path: string;
  value: unknown;
  index?: number;
}

export interface Row {
  name: string;
  local: Edit[];
  upstream: Edit[];
  expect: Expectation[];
  /** Expected conflicts as "reason field" (field may be empty). */
  conflicts: string[];
  absent?: string[];
}

const CONTAINER = "spec.template.spec.containers.0";

export const resourceMergeRows: Row[] = [
  {
    name: "scalar changed upstream only: upstream value applied",
    local: [],
    upstream: [["deploy.yaml", "replicas: 1", "replicas: 3"]],
    expect: [{ file: "deploy.yaml", path: "spec.replicas", value: 3 }],
    conflicts: [],
  },
  {
    name: "scalar changed locally only: local kept",
    local: [["deploy.yaml", "replicas: 1", "replicas: 5"]],
    upstream: [["deploy.yaml", "image: nginx:1.0", "image: nginx:1.1"]],
    expect: [
      { file: "deploy.yaml", path: "spec.replicas", value: 5 },
      { file: "deploy.yaml", path: `${CONTAINER}.image`, value: "nginx:1.1" },
    ],
    conflicts: [],
  },
  {
    name: "same scalar changed on both sides: upstream wins, conflict reported",
    local: [["deploy.yaml", "replicas: 1", "replicas: 5"]],
    upstream: [["deploy.yaml", "replicas: 1", "replicas: 3"]],
    expect: [{ file: "deploy.yaml", path: "spec.replicas", value: 3 }],
    conflicts: ["BothModified spec.replicas"],
  },
  {
    name: "same change on both sides: no conflict",
    local: [["deploy.yaml", "replicas: 1", "replicas: 3"]],
    upstream: [["deploy.yaml", "replicas: 1", "replicas: 3"]],
    expect: [{ file: "deploy.yaml", path: "spec.replicas", value: 3 }],
    conflicts: [],
  },
  {
    name: "field deleted locally, changed upstream: upstream value comes back",
    local: [["widget.yaml", "  size: small\n", ""]],
    upstream: [["widget.yaml", "size: small", "size: large"]],
    expect: [{ file: "widget.yaml", path: "spec.size", value: "large" }],
    conflicts: ["BothModified spec.size"],
  },
  {
    name: "field deleted locally, unchanged upstream: stays deleted",
    local: [["widget.yaml", "  size: small\n", ""]],
    upstream: [["widget.yaml", "tags: [a]", "tags: [a, b]"]],
    expect: [
      { file: "widget.yaml", path: "spec.size", value: undefined },
      { file: "widget.yaml", path: "spec.tags", value: ["a", "b"] },
    ],
    conflicts: [],
  },
  {
    name: "field set to null locally, changed upstream: field removed (local null wins)",
    local: [["widget.yaml", "size: small", "size: null"]],
    upstream: [["widget.yaml", "size: small", "size: large"]],
    expect: [{ file: "widget.yaml", path: "spec.size", value: undefined }],
    conflicts: ["BothModified spec.size"],
  },
  {
    name: "field removed upstream, modified locally: removed, conflict reported",
    local: [["widget.yaml", "size: small", "size: medium"]],
    upstream: [["widget.yaml", "  size: small\n", ""]],
    expect: [{ file: "widget.yaml", path: "spec.size", value: undefined }],
    conflicts: ["BothModified spec.size"],
  },
  {
    name: "keyed lists: env by name, local items kept, upstream items appended",
    local: [
      [
        "deploy.yaml",
        '              value: "1"\n',
        '              value: "1"\n            - name: LOCAL\n              value: l\n',
      ],
    ],
    upstream: [
      [
        "deploy.yaml",
        '              value: "1"\n',
        '              value: "2"\n            - name: B\n              value: b\n',
      ],
    ],
    expect: [
      {
        file: "deploy.yaml",
        path: `${CONTAINER}.env`,
        value: [
          { name: "A", value: "2" },
          { name: "LOCAL", value: "l" },
          { name: "B", value: "b" },
        ],
      },
    ],
    conflicts: [],
  },
  {
    name: "keyed lists: containers by name, a local sidecar survives an upstream image change",
    local: [
      [
        "deploy.yaml",
        "      volumes:\n",
        "        - name: sidecar\n          image: envoy:1\n      volumes:\n",
      ],
    ],
    upstream: [["deploy.yaml", "image: nginx:1.0", "image: nginx:1.1"]],
    expect: [
      { file: "deploy.yaml", path: `${CONTAINER}.image`, value: "nginx:1.1" },
      {
        file: "deploy.yaml",
        path: "spec.template.spec.containers.1",
        value: { name: "sidecar", image: "envoy:1" },
      },
    ],
    conflicts: [],
  },
  {
    name: "keyed lists: ports by containerPort+protocol merge item by item",
    local: [
      [
        "deploy.yaml",
        "            - containerPort: 80\n",
        "            - containerPort: 80\n              name: http\n            - containerPort: 9090\n",
      ],
    ],
    upstream: [
      [
        "deploy.yaml",
        "            - containerPort: 80\n",
        "            - containerPort: 80\n              protocol: TCP\n            - containerPort: 443\n",
      ],
    ],
    expect: [
      {
        file: "deploy.yaml",
        path: `${CONTAINER}.ports`,
        value: [
          { containerPort: 80, name: "http", protocol: "TCP" },
          { containerPort: 9090 },
          { containerPort: 443 },
        ],
      },
    ],
    conflicts: [],
  },
  {
    name: "keyed lists: Service ports by port+protocol merge item by item",
    local: [
      [
        "service.yaml",
        "      targetPort: 8080\n",
        "      targetPort: 8080\n    - port: 443\n      targetPort: 8443\n",
      ],
    ],
    upstream: [["service.yaml", "targetPort: 8080", "targetPort: 8081"]],
    expect: [
      {
        file: "service.yaml",
        path: "spec.ports",
        value: [
          { port: 80, targetPort: 8081 },
          { port: 443, targetPort: 8443 },
        ],
      },
    ],
    conflicts: [],
  },
  {
    name: "keyed lists: volumes by name, volumeMounts by mountPath",
    local: [
      [
        "deploy.yaml",
        "            - containerPort: 80\n",
        "            - containerPort: 80\n          volumeMounts:\n            - mountPath: /data\n              name: data\n",
      ],
    ],
    upstream: [
      [
        "deploy.yaml",
        "          emptyDir: {}\n",
        "          emptyDir: {}\n        - name: logs\n          emptyDir: {}\n",
      ],
    ],
    expect: [
      {
        file: "deploy.yaml",
        path: "spec.template.spec.volumes",
        value: [
          { name: "data", emptyDir: {} },
          { name: "logs", emptyDir: {} },
        ],
      },
      {
        file: "deploy.yaml",
        path: `${CONTAINER}.volumeMounts`,
        value: [{ mountPath: "/data", name: "data" }],
      },
    ],
    conflicts: [],
  },
  {
    name: "keyed list item changed on both sides: per-field conflict path",
    local: [["deploy.yaml", 'value: "1"', 'value: "local"']],
    upstream: [["deploy.yaml", 'value: "1"', 'value: "up"']],
    expect: [{ file: "deploy.yaml", path: `${CONTAINER}.env.0.value`, value: "up" }],
    conflicts: ["BothModified spec.template.spec.containers[name=app].env[name=A].value"],
  },
  {
    // kpt merges list items field by field: the locally changed field goes with the item.
    name: "keyed list item deleted upstream but modified locally: removed as in kpt, conflict reported",
    local: [["deploy.yaml", 'value: "1"', 'value: "local"']],
    upstream: [
      ["deploy.yaml", '- name: A\n              value: "1"', "- name: B\n              value: b"],
    ],
    expect: [{ file: "deploy.yaml", path: `${CONTAINER}.env`, value: [{ name: "B", value: "b" }] }],
    conflicts: [
      "DeletedUpstreamModifiedLocally spec.template.spec.containers[name=app].env[name=A]",
    ],
  },
  {
    name: "keyed list item deleted upstream with a field added locally: only key and local field survive (kpt)",
    local: [
      [
        "deploy.yaml",
        "            - containerPort: 80\n",
        "            - containerPort: 80\n              name: http\n",
      ],
    ],
    upstream: [["deploy.yaml", "containerPort: 80", "containerPort: 443"]],
    expect: [
      {
        file: "deploy.yaml",
        path: `${CONTAINER}.ports`,
        value: [{ containerPort: 80, name: "http" }, { containerPort: 443 }],
      },
    ],
    conflicts: [
      "DeletedUpstreamModifiedLocally spec.template.spec.containers[name=app].ports[containerPort=80,protocol=TCP]",
    ],
  },
  {
    name: "keyed list item deleted upstream, untouched locally: removed",
    local: [],
    upstream: [
      ["deploy.yaml", '- name: A\n              value: "1"', "- name: B\n              value: b"],
    ],
    expect: [{ file: "deploy.yaml", path: `${CONTAINER}.env`, value: [{ name: "B", value: "b" }] }],
    conflicts: [],
  },
  {
    name: "whole keyed list removed upstream: removed even if modified locally",
    local: [["deploy.yaml", 'value: "1"', 'value: "local"']],
    upstream: [
      ["deploy.yaml", '          env:\n            - name: A\n              value: "1"\n', ""],
    ],
    expect: [{ file: "deploy.yaml", path: `${CONTAINER}.env`, value: undefined }],
    conflicts: ["BothModified spec.template.spec.containers[name=app].env"],
  },
  {
    // kpt (kyaml) re-adds the item with upstream's changed fields and its key.
    name: "keyed list item deleted locally, changed upstream: changed fields come back as in kpt",
    local: [
      [
        "deploy.yaml",
        "        - name: data\n          emptyDir: {}\n",
        "        - name: cache\n          emptyDir: {}\n",
      ],
    ],
    upstream: [["deploy.yaml", "emptyDir: {}", "emptyDir: {medium: Memory}"]],
    expect: [
      {
        file: "deploy.yaml",
        path: "spec.template.spec.volumes",
        value: [
          { name: "cache", emptyDir: {} },
          { name: "data", emptyDir: { medium: "Memory" } },
        ],
      },
    ],
    conflicts: ["DeletedLocallyModifiedUpstream spec.template.spec.volumes[name=data]"],
  },
  {
    name: "keyed list item deleted locally, unchanged upstream: stays deleted",
    local: [
      [
        "deploy.yaml",
        "        - name: data\n          emptyDir: {}\n",
        "        - name: cache\n          emptyDir: {}\n",
      ],
    ],
    upstream: [["deploy.yaml", "replicas: 1", "replicas: 2"]],
    expect: [
      {
        file: "deploy.yaml",
        path: "spec.template.spec.volumes",
        value: [{ name: "cache", emptyDir: {} }],
      },
    ],
    conflicts: [],
  },
  {
    name: "scalar list: atomic, upstream change replaces local additions",
    local: [["deploy.yaml", 'args: ["--a"]', 'args: ["--a", "--local"]']],
    upstream: [["deploy.yaml", 'args: ["--a"]', 'args: ["--a", "--b"]']],
    expect: [{ file: "deploy.yaml", path: `${CONTAINER}.args`, value: ["--a", "--b"] }],
    conflicts: ["AtomicListReplaced spec.template.spec.containers[name=app].args"],
  },
  {
    name: "scalar list changed locally only: local kept",
    local: [["widget.yaml", "tags: [a]", "tags: [a, mine]"]],
    upstream: [["widget.yaml", "size: small", "size: large"]],
    expect: [{ file: "widget.yaml", path: "spec.tags", value: ["a", "mine"] }],
    conflicts: [],
  },
  {
    name: "list of maps in a kind without schema: atomic, local item lost",
    local: [["widget.yaml", "      size: 1\n", "      size: 1\n    - name: two\n      size: 2\n"]],
    upstream: [["widget.yaml", "size: 1", "size: 10"]],
    expect: [{ file: "widget.yaml", path: "spec.items", value: [{ name: "one", size: 10 }] }],
    conflicts: ["AtomicListReplaced spec.items"],
  },
  {
    name: "resource renamed and re-namespaced locally: still matched, upstream change applied",
    local: [
      [
        "deploy.yaml",
        "  name: app\n  namespace: demo\n",
        "  name: app-renamed\n  namespace: prod\n",
      ],
    ],
    upstream: [["deploy.yaml", "replicas: 1", "replicas: 3"]],
    expect: [
      { file: "deploy.yaml", path: "metadata.name", value: "app-renamed" },
      { file: "deploy.yaml", path: "metadata.namespace", value: "prod" },
      { file: "deploy.yaml", path: "spec.replicas", value: 3 },
    ],
    conflicts: [],
  },
  {
    name: "resource added upstream in a new file: added",
    local: [],
    upstream: [
      ["extra.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\ndata:\n  k: v\n"],
    ],
    expect: [{ file: "extra.yaml", path: "data.k", value: "v" }],
    conflicts: [],
  },
  {
    name: "resource added locally: kept",
    local: [
      ["mine.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: mine\ndata:\n  k: v\n"],
    ],
    upstream: [["deploy.yaml", "replicas: 1", "replicas: 3"]],
    expect: [{ file: "mine.yaml", path: "data.k", value: "v" }],
    conflicts: [],
  },
  {
    name: "deleted upstream, untouched locally: deleted",
    local: [],
    upstream: [["service.yaml", null]],
    expect: [],
    conflicts: [],
    absent: ["service.yaml"],
  },
  {
    name: "deleted upstream, modified locally: kept",
    local: [["service.yaml", "targetPort: 8080", "targetPort: 9090"]],
    upstream: [["service.yaml", null]],
    expect: [{ file: "service.yaml", path: "spec.ports.0.targetPort", value: 9090 }],
    conflicts: ["DeletedUpstreamModifiedLocally"],
  },
  {
    name: "deleted locally, modified upstream: stays deleted",
    local: [["service.yaml", null]],
    upstream: [["service.yaml", "targetPort: 8080", "targetPort: 8443"]],
    expect: [],
    conflicts: ["DeletedLocallyModifiedUpstream"],
    absent: ["service.yaml"],
  },
  {
    name: "non-KRM file changed upstream only: upstream applied",
    local: [],
    upstream: [["README.md", "# v1", "# v2"]],
    expect: [],
    conflicts: [],
  },
  {
    name: "non-KRM file changed on both sides: local kept, upstream change lost",
    local: [["README.md", "# v1", "# local"]],
    upstream: [["README.md", "# v1", "# v2"]],
    expect: [],
    conflicts: ["NonKrmFileBothModified"],
  },
  {
    name: "multi-document file: each document merged on its own, order kept",
    local: [["multi.yaml", "key: a", "key: local-a"]],
    upstream: [["multi.yaml", "key: b", "key: upstream-b"]],
    expect: [
      { file: "multi.yaml", path: "data.key", value: "local-a", index: 0 },
      { file: "multi.yaml", path: "data.key", value: "upstream-b", index: 1 },
    ],
    conflicts: [],
  },
  {
    name: "multi-document file: document deleted upstream removed, others kept",
    local: [],
    upstream: [
      [
        "multi.yaml",
        "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-b\ndata:\n  key: b\n",
        "",
      ],
    ],
    expect: [{ file: "multi.yaml", path: "metadata.name", value: "cm-a", index: 0 }],
    conflicts: [],
  },
  {
    name: "Kptfile info, labels and annotations 3-way merged; name stays local",
    local: [
      ["Kptfile", "tier: backend", "tier: backend\n    local: yes"],
      ["Kptfile", "owner: team-a", "owner: team-local"],
    ],
    upstream: [
      ["Kptfile", "description: sample package", "description: sample package v2"],
      ["Kptfile", "tier: backend", "tier: frontend"],
    ],
    expect: [
      { file: "Kptfile", path: "metadata.name", value: "mypkg" },
      { file: "Kptfile", path: "metadata.labels", value: { tier: "frontend", local: "yes" } },
      { file: "Kptfile", path: "metadata.annotations.owner", value: "team-local" },
      { file: "Kptfile", path: "info.description", value: "sample package v2" },
    ],
    conflicts: [],
  },
];
