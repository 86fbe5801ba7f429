import { execDenial, execPolicyFromEnv, parseExecAllowlist } from "../../../lib/fn/exec-policy";

describe("exec allow-list", () => {
  it("reads absolute paths and name=path pairs, comma-separated", () => {
    const { allowed, problems } = parseExecAllowlist(
      " /usr/local/bin/fn-a , fn-b=/opt/fns/b ,, my.fn_c = /opt/fns/c ",
    );
    expect([...allowed]).toEqual([
      ["/usr/local/bin/fn-a", "/usr/local/bin/fn-a"],
      ["fn-b", "/opt/fns/b"],
      ["my.fn_c", "/opt/fns/c"],
    ]);
    expect(problems).toEqual([]);
  });

  it("leaves out and reports entries that are not absolute, normalized paths or good names", () => {
    const { allowed, problems } = parseExecAllowlist(
      "fn,./fn,/opt/../bin/sh,bad name=/x,x=relative,/opt//fn,/opt/a\u0007b,ok=/opt/ok",
    );
    expect([...allowed.keys()]).toEqual(["ok"]);
    expect(problems).toEqual([
      'PORCH_PEPR_EXEC_ALLOWLIST entry "fn": path "fn" is not an absolute path',
      'PORCH_PEPR_EXEC_ALLOWLIST entry "./fn": path "./fn" is not an absolute path',
      'PORCH_PEPR_EXEC_ALLOWLIST entry "/opt/../bin/sh": path "/opt/../bin/sh" is not a normalized path',
      "PORCH_PEPR_EXEC_ALLOWLIST entry \"bad name=/x\": name \"bad name\" must be letters, digits, '.', '_' or '-'",
      'PORCH_PEPR_EXEC_ALLOWLIST entry "x=relative": path "relative" is not an absolute path',
      'PORCH_PEPR_EXEC_ALLOWLIST entry "/opt//fn": path "/opt//fn" is not a normalized path',
      'PORCH_PEPR_EXEC_ALLOWLIST entry "/opt/a\\u0007b": path "/opt/a\\u0007b" contains a control character or backslash',
    ]);
  });

  it("allows only what the administrator enabled and listed, exactly as listed", () => {
    const { policy } = execPolicyFromEnv({
      PORCH_PEPR_ALLOW_EXEC: "true",
      PORCH_PEPR_EXEC_ALLOWLIST: "/opt/fn,named=/opt/named",
    });
    expect(execDenial("/opt/fn", policy)).toBeUndefined();
    expect(execDenial("named", policy)).toBeUndefined();
    for (const exec of ["/opt/named", "/opt/fn --flag", " /opt/fn", "/bin/sh", "./fn"]) {
      expect(execDenial(exec, policy)).toBe(
        `exec function ${JSON.stringify(exec)} is not allowed: it is not on the operator's exec allow-list (ask the administrator)`,
      );
    }
  });

  it("denies every exec unless PORCH_PEPR_ALLOW_EXEC is true, whatever the allow-list", () => {
    for (const allow of [undefined, "1", "yes", "TRUE"]) {
      const { policy } = execPolicyFromEnv({
        PORCH_PEPR_ALLOW_EXEC: allow,
        PORCH_PEPR_EXEC_ALLOWLIST: "/opt/fn",
      });
      expect(execDenial("/opt/fn", policy)).toBe(
        'exec function "/opt/fn" is not allowed: this operator does not run exec functions',
      );
    }
  });
});
