import { describe, expect, it } from "vitest";

import { emailSchema, loginSchema, passwordProblem, passwordSchema } from "./schemas";

const messages = (value: { password: string; password_again: string }) => {
  const result = passwordSchema.safeParse(value);
  return result.success ? {} : Object.fromEntries(result.error.issues.map((issue) => [issue.path.join("."), issue.message]));
};

describe("the portal's password rules", () => {
  it.each([
    ["", "password.new_password_required_msg"],
    ["Ab1!", "password.new_password_eight_characters_msg"],
    ["abcdefg1!", "password.new_password_pattern_msg"],
    ["ABCDEFG1!", "password.new_password_pattern_msg"],
    ["Abcdefgh!", "password.new_password_pattern_msg"],
    ["Abcdefg12", "password.new_password_pattern_msg"],
    ["Abcdefg1!ä", "password.new_password_pattern_msg"],
    ["Abcdefg1 !", "password.new_password_pattern_msg"],
    ["Abcdefg1!", null],
    ["Abc[defg]1", null],
    ['Ab"cdefg1', null],
  ])("%j gives %s", (password, problem) => {
    expect(passwordProblem(password)).toBe(problem);
  });

  it("wants the retype, and the same", () => {
    expect(messages({ password: "Abcdefg1!", password_again: "" })).toEqual({ password_again: "password.retype_new_required_msg" });
    expect(messages({ password: "Abcdefg1!", password_again: "Abcdefg1?" })).toEqual({ password_again: "password.retype_new_match_msg" });
    expect(messages({ password: "Abcdefg1!", password_again: "Abcdefg1!" })).toEqual({});
  });
});

describe("login and e-mail", () => {
  it("needs username and password", () => {
    const result = loginSchema.safeParse({ username: " ", password: "" });
    expect(result.success ? [] : result.error.issues.map((issue) => issue.message)).toEqual(["login.required", "login.required"]);
  });

  it("takes a simple e-mail pattern", () => {
    expect(emailSchema.safeParse({ email: " anna@example.de " }).success).toBe(true);
    expect(emailSchema.safeParse({ email: "anna@example" }).success).toBe(false);
    expect(emailSchema.safeParse({ email: "" }).success).toBe(false);
  });
});
