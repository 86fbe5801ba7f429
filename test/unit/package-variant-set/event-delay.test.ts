import {
  MAX_VARIANT_EVENT_DELAY_MS,
  MIN_VARIANT_EVENT_DELAY_MS,
  variantEventDelayMs,
} from "../../../lib/package-variant-set";

describe("variantEventDelayMs", () => {
  it("grows with the set's size between its bounds", () => {
    expect(variantEventDelayMs(0)).toBe(MIN_VARIANT_EVENT_DELAY_MS);
    expect(variantEventDelayMs(10)).toBe(1_000);
    expect(variantEventDelayMs(1_000)).toBe(10_000);
    expect(variantEventDelayMs(2_000)).toBe(20_000);
    expect(variantEventDelayMs(10_000)).toBe(MAX_VARIANT_EVENT_DELAY_MS);
  });
});
