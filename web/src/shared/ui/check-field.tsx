import Checkbox from "@mui/material/Checkbox";
import FormControlLabel from "@mui/material/FormControlLabel";
import FormHelperText from "@mui/material/FormHelperText";
import Box from "@mui/material/Box";
import type { ReactNode } from "react";
import { type Control, Controller, type FieldValues, type Path } from "react-hook-form";

type Props<T extends FieldValues> = {
  control: Control<T>;
  name: Path<T>;
  label: ReactNode;
  disabled?: boolean;
  error?: string;
  children?: ReactNode;
};

/** A checkbox bound to a form field, with its error under it and optional content beside. */
export function CheckField<T extends FieldValues>({ control, name, label, disabled, error, children }: Props<T>) {
  const errorId = `${name}-error`;
  return (
    <Box sx={{ mb: 1.5 }}>
      <Controller
        control={control}
        name={name}
        render={({ field }) => (
          <FormControlLabel
            sx={{ alignItems: "flex-start", textAlign: "left" }}
            control={
              <Checkbox
                checked={Boolean(field.value)}
                onChange={(event) => field.onChange(event.target.checked)}
                onBlur={field.onBlur}
                inputRef={field.ref}
                disabled={disabled}
                sx={{ pt: 0.25 }}
                slotProps={{ input: { "aria-describedby": error ? errorId : undefined, "data-testid": `check-${name}` } as object }}
              />
            }
            label={label}
          />
        )}
      />
      {children && <Box sx={{ pl: 4 }}>{children}</Box>}
      {error && (
        <FormHelperText error id={errorId} sx={{ pl: 4 }} data-testid={`error-${name}`}>
          {error}
        </FormHelperText>
      )}
    </Box>
  );
}
