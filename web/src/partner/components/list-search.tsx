import TextField from "@mui/material/TextField";
import { type FormEvent, useState } from "react";

/** A search field for a list: applies on Enter or when leaving the field. */
export function ListSearch({
  label,
  value,
  onSearch,
  testid = "list-search",
}: {
  label: string;
  value: string;
  onSearch: (value: string) => void;
  testid?: string;
}) {
  const [text, setText] = useState(value);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSearch(text.trim());
  };
  return (
    <form role="search" onSubmit={submit} style={{ flex: 1, minWidth: 200 }}>
      <TextField
        size="small"
        fullWidth
        label={label}
        value={text}
        onChange={(event) => setText(event.target.value)}
        onBlur={() => text.trim() !== value && onSearch(text.trim())}
        slotProps={{ htmlInput: { type: "search", "data-testid": testid } }}
      />
    </form>
  );
}
