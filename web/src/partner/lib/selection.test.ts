import { describe, expect, it } from "vitest";

import { selectedRowIds } from "./selection";

describe("selectedRowIds", () => {
  it("an include model is its ids, those of other pages kept", () => {
    expect(selectedRowIds({ type: "include", ids: new Set([2, 9]) }, [1, 2, 3])).toEqual([2, 9]);
  });

  it("an exclude model ('select all') is every loaded row but the ones it lists", () => {
    expect(selectedRowIds({ type: "exclude", ids: new Set() }, [1, 2, 3])).toEqual([1, 2, 3]);
    expect(selectedRowIds({ type: "exclude", ids: new Set([2]) }, [1, 2, 3])).toEqual([1, 3]);
  });
});
