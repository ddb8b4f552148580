import { describe, expect, it } from "vitest";

import { fillPath, type TransportOptions, typedClient } from "./typed";

describe("fillPath", () => {
  it("puts the parameters into the template, below the client's prefix", () => {
    expect(
      fillPath("/api/partner/settlement_batches/{batch_id}/items/{item_id}/fail/", "/api/partner/", {
        batch_id: 3,
        item_id: 17,
      }),
    ).toBe("settlement_batches/3/items/17/fail/");
  });

  it("encodes a parameter as one path segment", () => {
    expect(fillPath("/api/configs/{subdomain}/", "/api/", { subdomain: "a/b c" })).toBe("configs/a%2Fb%20c/");
  });

  it("refuses a missing parameter and a path outside the prefix", () => {
    expect(() => fillPath("/api/partner/bulk_uploads/{upload_id}/", "/api/partner/", {})).toThrow("upload_id");
    expect(() => fillPath("/api/clients/", "/api/partner/")).toThrow("not below");
  });
});

describe("typedClient", () => {
  it("sends the operation's method, path, body and query through the area's transport", async () => {
    const calls: [string, TransportOptions][] = [];
    const client = typedClient("/api/partner/", (path, options) => {
      calls.push([path, options]);
      return Promise.resolve({ detail: "ok" });
    });

    const answer = await client.post("/api/partner/settlement_batches/{batch_id}/items/{item_id}/paid/", {
      path: { batch_id: 2, item_id: 5 },
      json: { note: "Bank" },
    });
    await client.get("/api/partner/bulk_uploads/", { query: { page: "2" } });

    expect(answer).toEqual({ detail: "ok" });
    expect(calls).toEqual([
      [
        "settlement_batches/2/items/5/paid/",
        { method: "POST", json: { note: "Bank" }, form: undefined, query: undefined, signal: undefined },
      ],
      ["bulk_uploads/", { method: "GET", json: undefined, form: undefined, query: { page: "2" }, signal: undefined }],
    ]);
  });
});

describe("an area's own options", () => {
  it("go to the transport beside the call (the flow's plain call, an upload's progress)", async () => {
    const calls: [string, TransportOptions & { plain?: boolean }][] = [];
    const client = typedClient<"/api/", { plain: boolean }>("/api/", (path, options) => {
      calls.push([path, options]);
      return Promise.resolve({ access: "a", refresh: "r" });
    });

    await client.post("/api/auth/registration/otp/verify/", {
      json: { email: "anna@example.org", otp_code: "123456" },
      plain: true,
    });

    expect(calls).toEqual([
      [
        "auth/registration/otp/verify/",
        {
          method: "POST",
          json: { email: "anna@example.org", otp_code: "123456" },
          plain: true,
          form: undefined,
          query: undefined,
          signal: undefined,
        },
      ],
    ]);
    expect(calls[0]?.[1].plain).toBe(true);
  });
});
