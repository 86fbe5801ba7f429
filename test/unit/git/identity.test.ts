import { identityProblem, MAX_IDENTITY_LENGTH, safeIdentity } from "../../../lib/git/identity";
import { parseCommit, signatureNow } from "../../../lib/git/commit-format";
import { encodeCommit } from "../../../lib/git/loose-objects";
import type { Repository } from "../../../crd-types";
import { validateRepository } from "../../../lib/validation";

const policy = { http: "loopback" as const, file: false };
const forged = "a@example.com>\ncommitter Mallory <m@example.com> 0 +0000";

describe("commit identities", () => {
  it("refuses a Repository author or email that could break a commit header, at admission", () => {
    const spec = (author: string, email: string) =>
      ({
        type: "git",
        git: { repo: "https://github.com/o/r.git", author, email },
      }) as Repository["spec"];
    expect(validateRepository(spec("Porch Bot", "bot@example.com"), policy)).toEqual([]);
    expect(validateRepository(spec("Eve <e@x>", forged), policy)).toEqual([
      `spec.git.author: Invalid value: "Eve <e@x>": must not contain control characters, '<' or '>'`,
      `spec.git.email: Invalid value: ${JSON.stringify(forged)}: must not contain control characters, '<' or '>'`,
    ]);
    expect(identityProblem("x".repeat(MAX_IDENTITY_LENGTH))).toBeUndefined();
    expect(identityProblem("x".repeat(MAX_IDENTITY_LENGTH + 1))).toBe(
      `must be no more than ${MAX_IDENTITY_LENGTH} characters`,
    );
    expect(identityProblem("tab\there")).toBeDefined();
    expect(identityProblem("del\u007f")).toBeDefined();
  });

  it("is made safe again where a commit is written: no forged header line", () => {
    const sig = signatureNow({ name: "Eve\r\n", email: forged }, new Date(0));
    const raw = encodeCommit({
      tree: "t",
      parents: [],
      message: "m\n",
      author: sig,
      committer: sig,
    });
    const text = raw.toString("utf8");
    const head = text.slice(0, text.indexOf("\n\n")).split("\n");
    expect(head.map(l => l.split(" ")[0])).toEqual(["tree", "author", "committer"]);
    expect(parseCommit(text).author).toEqual({
      name: "Eve",
      email: "a@example.comcommitter Mallory m@example.com 0 +0000",
      timestamp: 0,
      timezoneOffset: 0,
    });
    expect(safeIdentity("y".repeat(1000))).toHaveLength(MAX_IDENTITY_LENGTH);
  });
});
