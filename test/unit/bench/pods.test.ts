import { moduleProcessOf, restartsBetween } from "../../../bench/pods";

describe("the watcher Pod's module process", () => {
  // controller.js is pid 1 of the container (12 on the host); it forks the module (31).
  const parents: Record<number, number> = { 12: 7, 31: 12 };

  it("is the process controller.js forked, whatever the order cgroup.procs lists them in", () => {
    expect(moduleProcessOf([12, 31], pid => parents[pid])).toBe(31);
    expect(moduleProcessOf([31, 12], pid => parents[pid])).toBe(31);
  });

  it("is the only process while controller.js has not forked yet, and none in an empty cgroup", () => {
    expect(moduleProcessOf([12], pid => parents[pid])).toBe(12);
    expect(moduleProcessOf([], pid => parents[pid])).toBeUndefined();
  });
});

describe("restartsBetween", () => {
  it("counts the container's restarts, and a replaced Pod as one more than its own", () => {
    expect(restartsBetween({ uid: "a", restarts: 2 }, { uid: "a", restarts: 2 })).toBe(0);
    expect(restartsBetween({ uid: "a", restarts: 2 }, { uid: "a", restarts: 3 })).toBe(1);
    expect(restartsBetween({ uid: "a", restarts: 2 }, { uid: "b", restarts: 0 })).toBe(1);
  });
});
