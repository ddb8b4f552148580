import { screen } from "@testing-library/react";
import { beforeEach, describe, expect, it } from "vitest";

import { partnerConfig, renderAt, setDesktop } from "@/test/render";

import { yearDeadlineText } from "./year-deadline";

const open = (year: number, open_until: string, days_left: number | null) => ({ year, open_until, days_left });

describe("the quota year's deadline on the welcome and terms screens", () => {
  beforeEach(() => setDesktop(false));

  it("says until when the running year is open", () => {
    expect(yearDeadlineText({ today: "2026-06-01", open_years: [open(2026, "2026-10-31", null)] })).toBe(
      "Registrierungen für das Quotenjahr 2026 sind bis zum 31.10.2026 möglich.",
    );
  });

  it("counts down in the last 14 days, and says when it is the last day", () => {
    expect(
      yearDeadlineText({
        today: "2026-10-20",
        open_years: [open(2026, "2026-10-31", 11), open(2027, "2027-10-31", null)],
      }),
    ).toBe("Noch 11 Tage: Registrierungen für das Quotenjahr 2026 sind bis zum 31.10.2026 möglich.");
    expect(yearDeadlineText({ today: "2026-10-30", open_years: [open(2026, "2026-10-31", 1)] })).toMatch(
      /^Noch 1 Tag: /,
    );
    expect(yearDeadlineText({ today: "2026-10-31", open_years: [open(2026, "2026-10-31", 0)] })).toMatch(
      /^Nur noch heute: /,
    );
  });

  it("after the cut-off names the closed year and the next one", () => {
    expect(yearDeadlineText({ today: "2026-11-16", open_years: [open(2027, "2027-10-31", null)] })).toBe(
      "Für 2026 ist die Registrierung geschlossen. Registrierungen für das Quotenjahr 2027 sind bis zum 31.10.2027 möglich.",
    );
  });

  it("says nothing without an open year or without the calendar", () => {
    expect(yearDeadlineText({ today: "2026-11-16", open_years: [] })).toBeNull();
    expect(yearDeadlineText(undefined)).toBeNull();
  });

  it("is shown on the welcome and on the terms screen after the cut-off, with only the next year offered", () => {
    const afterCutOff = partnerConfig("standard", (c) => {
      c.qa_create_choices.current_year = false;
      c.qa_create_choices.next_year = true;
      c.qa_create_choices.next_year_title = "Quotenjahr 2027";
      c.quota_years = { today: "2026-11-16", open_years: [open(2027, "2027-10-31", null)] };
    });
    const expected =
      "Für 2026 ist die Registrierung geschlossen. Registrierungen für das Quotenjahr 2027 sind bis zum 31.10.2027 möglich.";

    const welcome = renderAt("/", afterCutOff);
    expect(screen.getByTestId("year-deadline")).toHaveTextContent(expected);
    welcome.unmount();

    renderAt("/terms", afterCutOff);
    expect(screen.getByTestId("year-deadline")).toHaveTextContent(expected);
    expect(screen.getByText("Quotenjahr 2027")).toBeInTheDocument();
    expect(screen.queryByText(afterCutOff.qa_create_choices.current_year_title)).not.toBeInTheDocument();
  });
});
