/** Shared building blocks in the partner's theme: buttons, inputs, checkboxes, toaster, titles. */
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Checkbox from "@mui/material/Checkbox";
import FormControlLabel from "@mui/material/FormControlLabel";
import Stack from "@mui/material/Stack";
import TextField from "@mui/material/TextField";
import type { Meta, StoryObj } from "@storybook/react-vite";
import { useEffect } from "react";

import { PageTitle } from "./page-title";
import { useToaster } from "./toaster";

const meta = {
  title: "Components/Shared",
  decorators: [
    (Story) => (
      <Box component="main" sx={{ p: 2, maxWidth: 480 }}>
        <Story />
      </Box>
    ),
  ],
} satisfies Meta;

export default meta;
type Story = StoryObj<typeof meta>;

export const Buttons: Story = {
  render: () => (
    <Stack spacing={2}>
      <Button variant="contained">Weiter</Button>
      <Button variant="contained" disabled>
        Weiter
      </Button>
      <Button variant="outlined">Zurück</Button>
      <Button>Bearbeiten/Korrigieren</Button>
    </Stack>
  ),
};

export const Inputs: Story = {
  render: () => (
    <Stack spacing={2}>
      <TextField label="E-Mail-Adresse" defaultValue="erika@example.de" />
      <TextField label="IBAN" defaultValue="DE89 3704" error helperText="Ungültige IBAN" />
      <FormControlLabel control={<Checkbox defaultChecked />} label="Ich akzeptiere die Teilnahmebedingungen." />
    </Stack>
  ),
};

export const Title: Story = { render: () => <PageTitle>Teilnahmebedingungen</PageTitle> };

function ToastOnOpen({ success }: { success: boolean }) {
  const toast = useToaster();
  useEffect(() => toast(success ? "Registrierung wurde angelegt" : "Fehler beim Hochladen", { success, timeout: 600_000 }), [toast, success]);
  return <p>Der Toaster erscheint oben.</p>;
}

export const ToasterSuccess: Story = { name: "Toaster: success", render: () => <ToastOnOpen success /> };
export const ToasterError: Story = { name: "Toaster: error", render: () => <ToastOnOpen success={false} /> };
