import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { reconcileRepository } from "../../../capabilities/repository/reconcile";
import { CredentialsError } from "../../../capabilities/shared/content-stores";
import { Repository, RepositoryKind } from "../../../crd-types";
import { SecretKind } from "../../../lib/cluster/kinds";
import { startGitServer, type GitServer } from "../../../hack/git-server";
import { testOperator, type TestOperator } from "../../support/operator-context";
import { current, NS, repositoryObject, seed } from "./fixtures";

jest.setTimeout(30_000);

// One git server behind both schemes: Authorization: Bearer <TOKEN>, or basic USER:PASSWORD.
const TOKEN = "tok-0123456789abcdef";
const USER = "porch";
const PASSWORD = "s3cret-Pa55word";

const base64 = (text: string) => Buffer.from(text, "utf8").toString("base64");

let root: string;
let server: GitServer;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "porch-credentials-test-"));
  server = await startGitServer({ root, user: USER, password: PASSWORD, token: TOKEN });
});
afterAll(async () => {
  await server.close();
  await rm(root, { recursive: true, force: true });
});

describe("Repository credentials from spec.git.secretRef", () => {
  let h: TestOperator;
  let repoCount = 0;
  beforeEach(async () => (h = await testOperator()));
  afterEach(() => h.close());

  /** A Repository on a new repository of the server whose secretRef names `git-auth`. */
  async function repositoryWithSecret(data?: Record<string, string>): Promise<Repository> {
    const { url } = await server.createBareRepo(`repo${++repoCount}`);
    if (data)
      await h.cluster.create(SecretKind, {
        metadata: { name: "git-auth", namespace: NS },
        data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, base64(v)])),
      });
    return seed(
      h.cluster,
      RepositoryKind,
      repositoryObject("repo", url, { git: { repo: url, secretRef: { name: "git-auth" } } }),
    );
  }

  const ready = async (repo: Repository) =>
    (await current(h.cluster, RepositoryKind, repo)).status?.conditions?.find(
      c => c.type === "Ready",
    );

  it("sends a bearerToken as a bearer token", async () => {
    const repo = await repositoryWithSecret({ bearerToken: TOKEN });

    const store = await h.ctx.stores.of(repo);
    await expect(store.open()).resolves.toMatch(/^[0-9a-f]{40}$/);

    await reconcileRepository(`${NS}/repo`, h.ctx);
    expect(await ready(repo)).toMatchObject({ status: "True", reason: "Ready" });
  });

  it("is refused by the server with a wrong token, and rebuilds the store when the Secret is fixed", async () => {
    const repo = await repositoryWithSecret({ bearerToken: "wrong-token" });
    await expect(reconcileRepository(`${NS}/repo`, h.ctx)).rejects.toThrow();
    const refused = await ready(repo);
    expect(refused).toMatchObject({
      status: "False",
      message: expect.stringContaining("check the repository credentials"),
    });
    expect(refused?.message).not.toContain("wrong-token");

    await h.cluster.patch(
      SecretKind,
      { namespace: NS, name: "git-auth" },
      { merge: { data: { bearerToken: base64(TOKEN) } } },
    );
    await reconcileRepository(`${NS}/repo`, h.ctx);
    expect(await ready(repo)).toMatchObject({ status: "True" });
  });

  it("sends username and password as basic credentials", async () => {
    const repo = await repositoryWithSecret({ username: USER, password: PASSWORD });

    const store = await h.ctx.stores.of(repo);
    await expect(store.open()).resolves.toMatch(/^[0-9a-f]{40}$/);
  });

  it("refuses a Secret holding neither, naming the Secret", async () => {
    const repo = await repositoryWithSecret({ token: TOKEN, username: USER });

    const failure = h.ctx.stores.of(repo);
    await expect(failure).rejects.toBeInstanceOf(CredentialsError);
    await expect(failure).rejects.toThrow(
      'Secret "git-auth" must hold username and password (type kubernetes.io/basic-auth) or bearerToken',
    );

    // The Repository says so, and the queue retries.
    await expect(reconcileRepository(`${NS}/repo`, h.ctx)).rejects.toBeInstanceOf(CredentialsError);
    expect(await ready(repo)).toMatchObject({
      status: "False",
      message: expect.stringContaining('Secret "git-auth"'),
    });
  });

  it("refuses a secretRef to a Secret that does not exist, naming it", async () => {
    const repo = await repositoryWithSecret();

    const failure = h.ctx.stores.of(repo);
    await expect(failure).rejects.toBeInstanceOf(CredentialsError);
    await expect(failure).rejects.toThrow(
      'cannot read Secret "git-auth" named by spec.git.secretRef',
    );
  });
});
