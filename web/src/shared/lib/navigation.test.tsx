import { fireEvent, render, screen } from "@testing-library/react";
import { MemoryRouter, Route, Routes, useLocation } from "react-router";
import { describe, expect, it } from "vitest";

import { useFlowNavigate, withQuery } from "./navigation";

function Where() {
  const location = useLocation();
  return <p data-testid="where">{location.pathname + location.search}</p>;
}

function Go() {
  const navigate = useFlowNavigate();
  return <button onClick={() => navigate("/terms")}>go</button>;
}

describe("query-keeping navigation", () => {
  it("keeps the query string across screens", () => {
    render(
      <MemoryRouter initialEntries={["/?campaign=herbst&email=a%40b.de"]}>
        <Routes>
          <Route path="/" element={<Go />} />
          <Route path="/terms" element={<Where />} />
        </Routes>
      </MemoryRouter>,
    );

    fireEvent.click(screen.getByText("go"));

    expect(screen.getByTestId("where")).toHaveTextContent("/terms?campaign=herbst&email=a%40b.de");
  });

  it("adds nothing without a query", () => {
    expect(withQuery("/login", "")).toEqual({ pathname: "/login", search: "" });
    expect(withQuery("/login", "?")).toEqual({ pathname: "/login", search: "" });
  });
});
