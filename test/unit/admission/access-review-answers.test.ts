import type { AccessSpec } from "../../support/memory-cluster/reviews";
import { testOperator, type TestOperator } from "../../support/operator-context";

// Admission's access reviews go through one process-wide gate (lib/validation/access-review-gate):
// an answer is kept a few seconds for the same user and question, so a tenant's repeated or
// concurrent applies do not each cost the API server a SubjectAccessReview.
let asked: AccessSpec[];
let t: TestOperator;
beforeEach(async () => {
  asked = [];
  t = await testOperator({
    cluster: { mayAccess: spec => (asked.push(spec), spec.user === "alice") },
  });
});
afterEach(() => t.close());

const question = (name: string) => ({
  verb: "get",
  group: "",
  resource: "configmaps",
  namespace: "team-a",
  name,
});

it("asks the API server once for the same user's same question within the cache time", async () => {
  const alice = { username: "alice", groups: ["system:authenticated"] };
  const answers = await Promise.all(
    Array.from({ length: 10 }, () => t.ctx.reviews.userMay(alice, question("db"))),
  );
  expect(answers.every(a => a.allowed)).toBe(true);
  await t.ctx.reviews.userMay(alice, question("db"));
  expect(asked).toHaveLength(1);
  // Another user, or another question, is asked.
  expect((await t.ctx.reviews.userMay({ username: "bob" }, question("db"))).allowed).toBe(false);
  await t.ctx.reviews.userMay(alice, question("cache"));
  expect(asked).toHaveLength(3);
  // Past the cache time the right is asked again (a revoked right takes effect).
  t.clock.advance(5_000);
  await t.ctx.reviews.userMay(alice, question("db"));
  expect(asked).toHaveLength(4);
});
