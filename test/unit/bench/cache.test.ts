import { ObjectCache } from "../../../bench/cache";
import type { Api, KubeObject } from "../../../bench/kube";

/** An Api that lists nothing and hands the test the watch's event callback. */
function fakeApi() {
  const watch = { send: (_type: string, _obj: KubeObject) => {} };
  const api = {
    json: async () => ({ metadata: { resourceVersion: "1" }, items: [] }),
    watch: (_path: string, _rv: string, onEvent: (type: string, obj: KubeObject) => void) => {
      watch.send = onEvent;
      return () => {};
    },
  } as unknown as Api;
  return { api, watch };
}

const object = (name: string): KubeObject => ({
  metadata: { name, resourceVersion: "2", managedFields: [{ manager: "x" }] },
});

describe("ObjectCache", () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it("re-evaluates a wait only after an event, however long nothing happens", async () => {
    const { api, watch } = fakeApi();
    const cache = await new ObjectCache(api, "/things").start();
    let evaluations = 0;
    const done = cache.until(
      "a thing",
      () => (++evaluations, cache.items.has("a") ? true : undefined),
      60_000,
    );
    jest.advanceTimersByTime(10_000);
    expect(evaluations).toBe(1);
    watch.send("ADDED", object("a"));
    jest.advanceTimersByTime(100);
    await expect(done).resolves.toMatchObject({ value: true });
    expect(evaluations).toBe(2);
    cache.stop();
  });

  it("keeps objects without their managedFields", async () => {
    const { api, watch } = fakeApi();
    const cache = await new ObjectCache(api, "/things").start();
    watch.send("ADDED", object("a"));
    expect(cache.items.get("a")?.metadata).toEqual({ name: "a", resourceVersion: "2" });
    cache.stop();
  });
});
