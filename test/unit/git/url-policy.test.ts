import {
  addressProblem,
  gitUrlPolicyFromEnv,
  gitUrlProblem,
  STRICT_URL_POLICY,
  type GitUrlPolicy,
} from "../../../lib/git/url-policy";
import { checkedAddresses, gitNetworkFromEnv, guardedLookup } from "../../../lib/git/network";

const LOOPBACK: GitUrlPolicy = { http: "loopback", file: false };
const ANY: GitUrlPolicy = { http: "any", file: true };

describe("gitUrlProblem", () => {
  it.each<[string, GitUrlPolicy, string | undefined]>([
    ["https://github.com/org/repo.git", STRICT_URL_POLICY, undefined],
    ["https://10.1.2.3:8443/repo.git", STRICT_URL_POLICY, undefined],
    ["https://[2001:db8::1]/repo.git", STRICT_URL_POLICY, undefined],
    ["http://127.0.0.1:3000/repo.git", LOOPBACK, undefined],
    ["http://localhost:3000/repo.git", LOOPBACK, undefined],
    ["http://[::1]:3000/repo.git", LOOPBACK, undefined],
    ["http://git.internal/repo.git", ANY, undefined],
    ["file:///srv/git/repo.git", ANY, undefined],
    // credentials in the URL
    [
      "https://user:pass@github.com/org/repo.git",
      ANY,
      "credentials in the URL are not allowed; use secretRef",
    ],
    [
      "https://token@github.com/org/repo.git",
      ANY,
      "credentials in the URL are not allowed; use secretRef",
    ],
    // schemes
    [
      "http://127.0.0.1:3000/repo.git",
      STRICT_URL_POLICY,
      "http URLs are not allowed by the operator's configuration (PORCH_PEPR_GIT_ALLOW_HTTP); use https",
    ],
    [
      "http://git.internal/repo.git",
      LOOPBACK,
      "http is allowed only to loopback hosts by the operator's configuration (PORCH_PEPR_GIT_ALLOW_HTTP=loopback); use https",
    ],
    [
      "file:///srv/git/repo.git",
      LOOPBACK,
      "file URLs are not allowed by the operator's configuration (PORCH_PEPR_GIT_ALLOW_FILE); use https",
    ],
    ["file://host/srv/repo.git", ANY, "a file URL must not name a host"],
    [
      "ssh://git@github.com/org/repo.git",
      ANY,
      "credentials in the URL are not allowed; use secretRef",
    ],
    ["ssh://github.com/org/repo.git", ANY, 'URL scheme "ssh" is not supported; use https'],
    ["git://github.com/org/repo.git", ANY, 'URL scheme "git" is not supported; use https'],
    [
      "ext::sh -c touch% /tmp/pwned",
      ANY,
      '"ext::sh -c touch% /tmp/pwned" is not a URL; use https://host/path',
    ],
    [
      "git@github.com:org/repo.git",
      ANY,
      '"git@github.com:org/repo.git" is not a URL; use https://host/path',
    ],
    [
      "--upload-pack=touch /tmp/x",
      ANY,
      '"--upload-pack=touch /tmp/x" is not a URL; use https://host/path',
    ],
    // link-local and metadata, whatever the scheme policy
    [
      "https://169.254.169.254/latest/meta-data",
      ANY,
      'host "169.254.169.254" is a link-local or cloud metadata address, which is never allowed',
    ],
    [
      "http://169.254.169.254/",
      ANY,
      'host "169.254.169.254" is a link-local or cloud metadata address, which is never allowed',
    ],
    [
      "https://2852039166/",
      ANY,
      'host "169.254.169.254" is a link-local or cloud metadata address, which is never allowed',
    ],
    [
      "https://[::ffff:169.254.169.254]/",
      ANY,
      'host "::ffff:a9fe:a9fe" is a link-local or cloud metadata address, which is never allowed',
    ],
    [
      "https://[fe80::1]/repo.git",
      ANY,
      'host "fe80::1" is a link-local or cloud metadata address, which is never allowed',
    ],
    [
      "https://[fd00:ec2::254]/",
      ANY,
      'host "fd00:ec2::254" is a link-local or cloud metadata address, which is never allowed',
    ],
    [
      "https://100.100.100.200/",
      ANY,
      'host "100.100.100.200" is a link-local or cloud metadata address, which is never allowed',
    ],
    [
      "https://metadata.google.internal/computeMetadata/v1/",
      ANY,
      'host "metadata.google.internal" is a cloud metadata service, which is never allowed',
    ],
    [
      "https://METADATA.google.internal./",
      ANY,
      'host "metadata.google.internal" is a cloud metadata service, which is never allowed',
    ],
    [
      "https://0.0.0.0/repo.git",
      ANY,
      'host "0.0.0.0" is a link-local or cloud metadata address, which is never allowed',
    ],
    ["not a url", ANY, '"not a url" is not a URL; use https://host/path'],
    ["https://", ANY, '"https://" is not a valid URL'],
  ])("%s (%j) → %s", (url, policy, expected) => {
    expect(gitUrlProblem(url, policy)).toBe(expected);
  });
});

describe("addressProblem: the address a host name resolves to", () => {
  it.each<[string, string, GitUrlPolicy, string | undefined]>([
    ["93.184.216.34", "https:", STRICT_URL_POLICY, undefined],
    ["127.0.0.1", "http:", LOOPBACK, undefined],
    ["::1", "http:", LOOPBACK, undefined],
    [
      "169.254.169.254",
      "https:",
      ANY,
      "the git host resolves to 169.254.169.254, a link-local or cloud metadata address, which is never allowed",
    ],
    [
      "::ffff:169.254.169.254",
      "https:",
      ANY,
      "the git host resolves to 169.254.169.254, a link-local or cloud metadata address, which is never allowed",
    ],
    [
      "fe80::abcd",
      "https:",
      ANY,
      "the git host resolves to fe80::abcd, a link-local or cloud metadata address, which is never allowed",
    ],
    [
      "10.0.0.7",
      "http:",
      LOOPBACK,
      "http is allowed only to loopback hosts by the operator's configuration (PORCH_PEPR_GIT_ALLOW_HTTP=loopback); the git host resolves to 10.0.0.7",
    ],
    ["10.0.0.7", "http:", ANY, undefined],
  ])("%s over %s (%j) → %s", (address, protocol, policy, expected) => {
    expect(addressProblem(address, protocol, policy)).toBe(expected);
  });
});

describe("connect-time checks", () => {
  const network = (answer: string) => ({
    ...gitNetworkFromEnv({}),
    resolve: () => Promise.resolve([{ address: answer, family: answer.includes(":") ? 6 : 4 }]),
  });

  it("refuses a name that resolves to a metadata address, and accepts one that resolves elsewhere", async () => {
    const url = new URL("https://git.example.com/repo.git");
    await expect(checkedAddresses(url, network("169.254.169.254"))).rejects.toMatchObject({
      code: "URLNotAllowed",
      message:
        "git URL https://git.example.com/repo.git refused: the git host resolves to 169.254.169.254, a link-local or cloud metadata address, which is never allowed",
    });
    await expect(checkedAddresses(url, network("93.184.216.34"))).resolves.toEqual([
      { address: "93.184.216.34", family: 4 },
    ]);
  });

  it("gives Node's socket only checked addresses", async () => {
    const lookup = guardedLookup("https:", network("fd00:ec2::254"));
    const err = await new Promise(resolve => lookup("git.example.com", {}, e => resolve(e)));
    expect(err).toMatchObject({ code: "URLNotAllowed" });
    const ok = guardedLookup("https:", network("93.184.216.34"));
    const all = await new Promise(resolve =>
      ok("git.example.com", { all: true }, (_e, addresses) => resolve(addresses)),
    );
    expect(all).toEqual([{ address: "93.184.216.34", family: 4 }]);
  });
});

describe("configuration", () => {
  it("allows only https unless the environment says otherwise", () => {
    expect(gitUrlPolicyFromEnv({})).toEqual({ http: "none", file: false });
    expect(
      gitUrlPolicyFromEnv({
        PORCH_PEPR_GIT_ALLOW_HTTP: "loopback",
        PORCH_PEPR_GIT_ALLOW_FILE: "true",
      }),
    ).toEqual({ http: "loopback", file: true });
    expect(gitUrlPolicyFromEnv({ PORCH_PEPR_GIT_ALLOW_HTTP: "everything" }).http).toBe("none");
  });

  it("reads the timeouts, with defaults of 10 s, 30 s, 5 min and below 1 KiB/s for 30 s", () => {
    expect(gitNetworkFromEnv({}).timeouts).toEqual({
      connectMs: 10_000,
      idleMs: 30_000,
      totalMs: 300_000,
      lowSpeedLimit: 1024,
      lowSpeedTimeMs: 30_000,
    });
    expect(
      gitNetworkFromEnv({
        PORCH_PEPR_GIT_CONNECT_TIMEOUT_MS: "1000",
        PORCH_PEPR_GIT_IDLE_TIMEOUT_MS: "2000",
        PORCH_PEPR_GIT_TOTAL_TIMEOUT_MS: "-1",
        PORCH_PEPR_GIT_LOW_SPEED_LIMIT: "4096",
        PORCH_PEPR_GIT_LOW_SPEED_TIME_MS: "10000",
      }).timeouts,
    ).toEqual({
      connectMs: 1000,
      idleMs: 2000,
      totalMs: 300_000,
      lowSpeedLimit: 4096,
      lowSpeedTimeMs: 10_000,
    });
    expect(gitNetworkFromEnv({}).limits).toEqual({
      maxFileBytes: 1024 * 1024,
      maxPackageBytes: 1024 * 1024,
      maxPackageFiles: 1000,
      maxFetchBytes: 128 * 1024 * 1024,
      maxTreeEntries: 100_000,
      maxObjectBytes: 16 * 1024 * 1024,
      maxInflatedBytes: 512 * 1024 * 1024,
      maxRevisions: 10_000,
      maxRefs: 50_000,
      maxCommitBytes: 1024 * 1024,
      maxPackObjects: 500_000,
    });
    expect(
      gitNetworkFromEnv({
        PORCH_PEPR_GIT_MAX_FILE_BYTES: "10",
        PORCH_PEPR_GIT_MAX_PACKAGE_BYTES: "20",
        PORCH_PEPR_GIT_MAX_PACKAGE_FILES: "0",
        PORCH_PEPR_GIT_MAX_FETCH_BYTES: "x",
        PORCH_PEPR_GIT_MAX_INFLATED_BYTES: "30",
        PORCH_PEPR_REPOSITORY_MAX_REVISIONS: "50",
        PORCH_PEPR_GIT_MAX_REFS: "60",
        PORCH_PEPR_GIT_MAX_COMMIT_BYTES: "70",
        PORCH_PEPR_GIT_MAX_PACK_OBJECTS: "80",
      }).limits,
    ).toEqual({
      maxFileBytes: 10,
      maxPackageBytes: 20,
      maxPackageFiles: 1000,
      maxFetchBytes: 128 * 1024 * 1024,
      maxTreeEntries: 100_000,
      maxObjectBytes: 16 * 1024 * 1024,
      maxInflatedBytes: 30,
      maxRevisions: 50,
      maxRefs: 60,
      maxCommitBytes: 70,
      maxPackObjects: 80,
    });
  });
});

describe("URLs that git and the policy would read differently", () => {
  // WHATWG parsing (the policy's) takes "\" for "/" and drops tabs and newlines; git and curl
  // take "good.example\" for a user name and connect to the host after "@".
  it.each([
    "https://example.com\\@169.254.169.254/x",
    "http://localhost\\@10.0.0.5/repo.git",
    "https://example.com/\\x",
    "https://exa\tmple.com/repo.git",
    "https://example.com/repo.git\n",
    "https://example.com /repo.git",
    "https://example.com/re\u0000po.git",
  ])("refuses %j", url => {
    expect(gitUrlProblem(url, ANY)).toMatch(
      /^the URL contains a backslash, whitespace or a control character/,
    );
  });

  it("refuses a host written other than as parsed", () => {
    expect(gitUrlProblem("https://example.com%2f@169.254.169.254/x", ANY)).toBeDefined();
    expect(gitUrlProblem("https://EXAMPLE.com/repo.git", ANY)).toBeUndefined();
  });
});
