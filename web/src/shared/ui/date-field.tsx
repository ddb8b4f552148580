import TextField, { type TextFieldProps } from "@mui/material/TextField";
import { type FocusEvent, useState } from "react";

import { germanDay, isoDay } from "@/shared/lib/german-date";

export type DateFieldProps = Omit<TextFieldProps, "value" | "onChange" | "type" | "placeholder"> & {
  /** The day as the API takes it (YYYY-MM-DD), or "". */
  value: string;
  /** The typed day as YYYY-MM-DD, "" when cleared, or the typed text when it is no day (the caller's rules refuse it). */
  onChange: (value: string) => void;
  testId?: string;
  placeholder?: string;
  /** Shown when the field is left with text that is no day, unless the caller shows its own error. */
  invalidText?: string;
};

/** The format hint in the page's language (the partner area switches `<html lang>`): the same
 * day.month.year order either way, German letters only on a German page. */
const HINTS = {
  de: { placeholder: "TT.MM.JJJJ", invalidText: "Bitte ein Datum im Format TT.MM.JJJJ eingeben." },
  en: { placeholder: "DD.MM.YYYY", invalidText: "Please enter a date as DD.MM.YYYY." },
};

function pageHints() {
  return typeof document !== "undefined" && document.documentElement.lang.startsWith("en") ? HINTS.en : HINTS.de;
}

/**
 * A date typed day.month.year (the German way) whatever the browser's language, carried as
 * YYYY-MM-DD. Chromium's `<input type="date">` takes its format from the browser's UI language.
 * Without a placeholder or invalidText from the caller, the hint follows the page's language.
 */
export function DateField({
  value,
  onChange,
  onBlur,
  testId,
  placeholder = pageHints().placeholder,
  invalidText = pageHints().invalidText,
  error,
  helperText,
  slotProps,
  ...rest
}: DateFieldProps) {
  const [text, setText] = useState(() => germanDay(value));
  const [given, setGiven] = useState(value);
  const [left, setLeft] = useState(false);
  if (value !== given) {
    // The caller set another day (a reset, the address bar): show it, unless it is what was typed.
    setGiven(value);
    if (value !== text && isoDay(text) !== value) setText(germanDay(value));
  }
  const wrong = left && text.trim() !== "" && isoDay(text) === null;
  const change = (next: string) => {
    setText(next);
    setLeft(false);
    onChange(next.trim() === "" ? "" : (isoDay(next) ?? next));
  };
  const leave = (event: FocusEvent<HTMLInputElement | HTMLTextAreaElement>) => {
    setLeft(true);
    const day = isoDay(text);
    if (day) setText(germanDay(day));
    onBlur?.(event);
  };
  return (
    <TextField
      {...rest}
      type="text"
      value={text}
      placeholder={placeholder}
      onChange={(event) => change(event.target.value)}
      onBlur={leave}
      error={error ?? wrong}
      helperText={helperText ?? (wrong ? invalidText : undefined)}
      slotProps={{
        ...slotProps,
        inputLabel: { shrink: true, ...(slotProps?.inputLabel as object) },
        htmlInput: {
          "data-testid": testId,
          autoComplete: "off",
          maxLength: 10,
          ...(slotProps?.htmlInput as object),
        },
      }}
    />
  );
}
