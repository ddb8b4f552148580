import Download from "@mui/icons-material/Download";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Dialog from "@mui/material/Dialog";
import DialogActions from "@mui/material/DialogActions";
import DialogContent from "@mui/material/DialogContent";
import DialogContentText from "@mui/material/DialogContentText";
import DialogTitle from "@mui/material/DialogTitle";
import Stack from "@mui/material/Stack";
import TextField from "@mui/material/TextField";
import { useState } from "react";

import { EXPORTS, useSubPartnerLink } from "../api/exports";
import { useExportTexts } from "../texts/exports";

/** A sub-partner's referral link with its QR code to print (issue 49): the code as the server
 * draws it (SVG on screen), downloads as PNG and SVG, the link to copy. */
export function SubPartnerQrDialog({ id, name, onClose }: { id: number; name: string; onClose: () => void }) {
  const x = useExportTexts();
  const link = useSubPartnerLink(id);
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    if (!link.data) return;
    await navigator.clipboard?.writeText(link.data.url);
    setCopied(true);
  };
  return (
    <Dialog open onClose={onClose} fullWidth maxWidth="xs" aria-labelledby="sub-partner-qr-title">
      <DialogTitle id="sub-partner-qr-title">{x("qrTitle", { name })}</DialogTitle>
      <DialogContent>
        <Stack spacing={2} sx={{ alignItems: "center" }}>
          <DialogContentText>{x("qrText")}</DialogContentText>
          <Box
            component="img"
            src={EXPORTS.qr(id, "svg")}
            alt={x("qrOf", { name })}
            sx={{ width: 220, height: 220, bgcolor: "#fff" }}
            data-testid="sub-partner-qr-image"
          />
          <TextField
            label={x("qrTitle", { name })}
            value={link.data?.url ?? ""}
            fullWidth
            slotProps={{ htmlInput: { readOnly: true, "data-testid": "sub-partner-link" } }}
            helperText={copied ? x("copied") : " "}
          />
          <Stack direction="row" spacing={1} sx={{ flexWrap: "wrap", rowGap: 1, justifyContent: "center" }}>
            <Button variant="outlined" onClick={() => void copy()} disabled={!link.data} data-testid="sub-partner-copy">
              {x("copy")}
            </Button>
            <Button
              variant="outlined"
              component="a"
              href={EXPORTS.qr(id, "png")}
              download
              startIcon={<Download />}
              data-testid="sub-partner-qr-png"
            >
              {x("qrPng")}
            </Button>
            <Button
              variant="outlined"
              component="a"
              href={EXPORTS.qr(id, "svg")}
              download
              startIcon={<Download />}
              data-testid="sub-partner-qr-svg"
            >
              {x("qrSvg")}
            </Button>
          </Stack>
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{x("close")}</Button>
      </DialogActions>
    </Dialog>
  );
}
