import Box from "@mui/material/Box";
import Typography from "@mui/material/Typography";

import { usePartner } from "@/shared/lib/partner-context";

/** Numbered steps with circles in the partner's circle colour. */
export function Steps({ steps }: { steps: string[] }) {
  const { tokens } = usePartner().theme;
  return (
    <Box component="ol" sx={{ listStyle: "none", p: 0, m: 0, display: "grid", gap: 1.5 }}>
      {steps.map((text, index) => (
        <Box component="li" key={index} sx={{ display: "flex", alignItems: "center", gap: 1.5 }}>
          <Box
            aria-hidden
            sx={{
              flex: "none",
              width: 32,
              height: 32,
              borderRadius: "50%",
              bgcolor: tokens.circle,
              color: "#fff",
              display: "grid",
              placeItems: "center",
              fontWeight: 700,
            }}
          >
            {index + 1}
          </Box>
          <Typography>{text}</Typography>
        </Box>
      ))}
    </Box>
  );
}
