import { builtinPoolSettings } from "../../../lib/fn/builtin-pool";

describe("PORCH_PEPR_BUILTIN_MEMORY", () => {
  it("defaults to 96 MiB: one default-sized run at a time", () => {
    expect(builtinPoolSettings({})).toEqual({ memoryMiB: 96, warnings: [] });
  });

  it("reads a memory quantity", () => {
    expect(builtinPoolSettings({ PORCH_PEPR_BUILTIN_MEMORY: "1Gi" }).memoryMiB).toBe(1024);
  });

  it("warns and keeps the default for anything else", () => {
    expect(builtinPoolSettings({ PORCH_PEPR_BUILTIN_MEMORY: "16Mi" })).toEqual({
      memoryMiB: 96,
      warnings: [
        'PORCH_PEPR_BUILTIN_MEMORY="16Mi" is not a memory quantity from 32Mi to 16Gi (like 192Mi): using 96Mi',
      ],
    });
  });
});
