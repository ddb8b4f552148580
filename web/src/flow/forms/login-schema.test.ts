import { describe, expect, it } from "vitest";

import { loginSchema } from "./login-schema";

function message(email: string): string | null {
  const result = loginSchema.safeParse({ email });
  return result.success ? null : (result.error.issues[0]?.message ?? null);
}

describe("the login e-mail", () => {
  it.each(["anna@example.org", " Anna.Muster+thg@mail.example.de ", "o'neil@example.co.uk"])("accepts %s", (email) => {
    expect(message(email)).toBeNull();
  });

  it("is mandatory", () => {
    expect(message("")).toBe("Eingabe erforderlich.");
    expect(message("   ")).toBe("Eingabe erforderlich.");
  });

  it.each(["anna", "anna@", "@example.org", "anna@example", "an na@example.org", "anna@-example.org", `anna@${"a".repeat(64)}.de`])(
    "refuses %s as an address",
    (email) => {
      expect(message(email)).toBe("Bitte geben Sie eine gültige E-Mail-Adresse ein.");
    },
  );

  it("refuses emojis", () => {
    expect(message("anna😀@example.org")).toBe("Bitte keine Emojis verwenden");
  });
});
