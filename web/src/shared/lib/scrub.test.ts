import { describe, expect, it } from "vitest";

import { type ReportEvent, scrubBreadcrumb, scrubEvent, scrubText } from "./scrub";

const PERSONAL = ["erika", "mustermann", "example.org", "DE89", "3704 0044", "s3cr3t", "eyJhbGci", "123456", "Ab9"];

function leaks(value: unknown): string[] {
  const text = JSON.stringify(value);
  return PERSONAL.filter((item) => text.includes(item));
}

describe("scrubText", () => {
  it.each([
    ["login link for erika.mustermann@example.org sent", "login link for [email] sent"],
    ["IBAN DE89 3704 0044 0532 0130 00 refused", "IBAN [iban] refused"],
    ["IBAN DE89370400440532013000 refused", "IBAN [iban] refused"],
    ["Bearer eyJhbGciOiJIUzI1NiJ9.eyJ1c2VyIjoxfQ.sig-nature_1", "Bearer [token]"],
    ["https://a.example/login?key=s3cr3t&next=/portal", "https://a.example/login?key=[redacted]&next=[redacted]"],
    ["/codevalidation?code=123456#x", "/codevalidation?code=[redacted]#x"],
    ["/portal/reset-password?token=s3cr3t&id=12", "/portal/reset-password?token=[redacted]&id=[redacted]"],
    ["/partner/invite/Ab9xYz_s3cr3tkey", "/partner/invite/[redacted]"],
    ["/api/end_user_portal/password-reset/verify/s3cr3t/12/", "/api/end_user_portal/password-reset/verify/[redacted]/"],
    ["/api/registrations/0f8fad5b-d9cb-469f-a165-70867728950e/", "/api/registrations/[redacted]/"],
    ["/portal#access_token=s3cr3t", "/portal#[redacted]"],
  ])("%s", (text, expected) => {
    expect(scrubText(text)).toBe(expected);
  });

  it("keeps what locates an error: hashed asset names, routes, messages", () => {
    for (const text of [
      "https://autohaus.example/assets/FormControlLabel-C5V6E31U.js",
      "https://autohaus.example/assets/index-DhnUNLmT.js:1:2345",
      "/portal/registrations",
      "TypeError: Cannot read properties of undefined (reading 'theme')",
    ]) {
      expect(scrubText(text)).toBe(text);
    }
  });
});

describe("scrubEvent", () => {
  it("drops the user, cookies, bodies and personal keys; masks every string", () => {
    const event: ReportEvent = {
      message: "could not save erika.mustermann@example.org",
      user: { email: "erika.mustermann@example.org", ip_address: "{{auto}}" },
      request: {
        url: "https://autohaus.example/login?key=s3cr3t",
        query_string: "key=s3cr3t",
        cookies: { sessionid: "s3cr3t" },
        data: { iban: "DE89370400440532013000" },
        headers: {
          "User-Agent": "Mozilla/5.0",
          Referer: "https://autohaus.example/codevalidation?code=123456",
          Cookie: "a=s3cr3t",
        },
      },
      exception: {
        values: [
          {
            type: "Error",
            value: "billing failed for DE89 3704 0044 0532 0130 00",
            stacktrace: {
              frames: [
                {
                  filename: "https://autohaus.example/assets/index-DhnUNLmT.js",
                  function: "submit",
                  vars: { first_name: "Erika", n: "Mustermann" },
                },
              ],
            },
          },
        ],
      },
      breadcrumbs: [
        { category: "fetch", data: { method: "POST", url: "/api/auth/login/?code=123456", status_code: 400 } },
        {
          category: "console",
          message: "user erika.mustermann@example.org",
          data: { arguments: ["erika.mustermann@example.org"] },
        },
        { category: "navigation", data: { from: "/partner/invite/Ab9xYz_s3cr3tkey", to: "/partner" } },
      ],
      extra: {
        last_name: "Mustermann",
        account_iban: "DE89370400440532013000",
        note: "see erika.mustermann@example.org",
        count: 3,
      },
      contexts: {
        browser: { name: "Chrome", version: "130" },
        form: { name: "Erika Mustermann" },
        react: { componentStack: "at Billing" },
      },
      tags: { partner: "autohaus" },
    };

    const out = scrubEvent(event);

    expect(leaks(out)).toEqual([]);
    expect(out.user).toBeUndefined();
    expect(out.request).toEqual({
      url: "https://autohaus.example/login?key=[redacted]",
      headers: { "User-Agent": "Mozilla/5.0", Referer: "https://autohaus.example/codevalidation?code=[redacted]" },
    });
    const frame = out.exception?.values?.[0].stacktrace?.frames?.[0];
    expect(frame?.filename).toBe("https://autohaus.example/assets/index-DhnUNLmT.js");
    expect(frame?.function).toBe("submit");
    expect(out.breadcrumbs?.[0].data).toEqual({
      method: "POST",
      url: "/api/auth/login/?code=[redacted]",
      status_code: 400,
    });
    expect(out.extra).toEqual({ last_name: "[filtered]", account_iban: "[filtered]", note: "see [email]", count: 3 });
    expect(out.contexts?.browser).toEqual({ name: "Chrome", version: "130" });
    expect(out.contexts?.form).toEqual({ name: "[filtered]" });
    expect(out.tags).toEqual({ partner: "autohaus" });
  });

  it("scrubs a breadcrumb on its own (beforeBreadcrumb)", () => {
    const crumb = scrubBreadcrumb({
      category: "xhr",
      message: "GET /x?email=erika.mustermann@example.org",
      data: { token: "eyJhbGci" },
    });
    expect(leaks(crumb)).toEqual([]);
    expect(crumb.data).toEqual({ token: "[filtered]" });
  });
});
