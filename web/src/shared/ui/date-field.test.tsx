import { fireEvent, render, screen } from "@testing-library/react";
import { useState } from "react";
import { describe, expect, it } from "vitest";

import { germanDay, isIsoDay, isoDay } from "@/shared/lib/german-date";

import { DateField } from "./date-field";

describe("German dates", () => {
  it("read TT.MM.JJJJ (and a pasted YYYY-MM-DD) as the calendar day, and nothing else", () => {
    expect(isoDay("24.11.2026")).toBe("2026-11-24");
    expect(isoDay(" 1.3.2026 ")).toBe("2026-03-01");
    expect(isoDay("24112026")).toBe("2026-11-24");
    expect(isoDay("2026-11-24")).toBe("2026-11-24");
    expect(isoDay("29.02.2028")).toBe("2028-02-29");
    for (const wrong of ["11/24/2026", "31.02.2026", "29.02.2026", "24.13.2026", "24.11.26", "", "heute"])
      expect(isoDay(wrong)).toBeNull();
    expect(germanDay("2026-03-01")).toBe("01.03.2026");
    expect(isIsoDay("2026-03-01")).toBe(true);
    expect(isIsoDay("2026-02-30")).toBe(false);
  });
});

function Form({ initial = "" }: { initial?: string }) {
  const [day, setDay] = useState(initial);
  return (
    <>
      <DateField label="Von" value={day} onChange={setDay} testId="day" />
      <output data-testid="sent">{day}</output>
      <button type="button" onClick={() => setDay("")}>
        Zurücksetzen
      </button>
    </>
  );
}

describe("DateField", () => {
  it("shows the day as TT.MM.JJJJ and hands on YYYY-MM-DD", () => {
    render(<Form initial="2026-03-01" />);
    const input = screen.getByTestId("day");
    expect(input).toHaveValue("01.03.2026");
    expect(input).toHaveAttribute("type", "text");
    expect(input).toHaveAttribute("placeholder", "TT.MM.JJJJ");
    fireEvent.change(input, { target: { value: "24.11.2026" } });
    expect(screen.getByTestId("sent")).toHaveTextContent("2026-11-24");
    expect(input).toHaveValue("24.11.2026");
    fireEvent.change(input, { target: { value: "1.2.2027" } });
    fireEvent.blur(input);
    expect(input).toHaveValue("01.02.2027");
    expect(screen.getByTestId("sent")).toHaveTextContent("2027-02-01");
  });

  it("says what it wants when left with no day, and empties on a reset", () => {
    render(<Form initial="2026-03-01" />);
    const input = screen.getByTestId("day");
    fireEvent.change(input, { target: { value: "03/01/2026" } });
    expect(screen.queryByText("Bitte ein Datum im Format TT.MM.JJJJ eingeben.")).toBeNull();
    fireEvent.blur(input);
    expect(screen.getByText("Bitte ein Datum im Format TT.MM.JJJJ eingeben.")).toBeInTheDocument();
    expect(input).toHaveAttribute("aria-invalid", "true");
    fireEvent.click(screen.getByRole("button", { name: "Zurücksetzen" }));
    expect(input).toHaveValue("");
  });
});

describe("DateField's format hint", () => {
  it("is TT.MM.JJJJ on a German page and DD.MM.YYYY on an English one", () => {
    const before = document.documentElement.lang;
    try {
      document.documentElement.lang = "en";
      const { unmount } = render(<Form />);
      expect(screen.getByTestId("day")).toHaveAttribute("placeholder", "DD.MM.YYYY");
      fireEvent.change(screen.getByTestId("day"), { target: { value: "31.02.2026" } });
      fireEvent.blur(screen.getByTestId("day"));
      expect(screen.getByText("Please enter a date as DD.MM.YYYY.")).toBeInTheDocument();
      unmount();
      document.documentElement.lang = "de";
      render(<Form />);
      expect(screen.getByTestId("day")).toHaveAttribute("placeholder", "TT.MM.JJJJ");
    } finally {
      document.documentElement.lang = before;
    }
  });
});
