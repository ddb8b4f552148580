import Button from "@mui/material/Button";
import Typography from "@mui/material/Typography";
import { Link as RouterLink, useLocation } from "react-router";

import { isB2BPath } from "@/shared/lib/navigation";
import { Layout } from "@/shared/ui/layout";
import { PageTitle } from "@/shared/ui/page-title";

/** An unknown path, inside the partner's brand, with the way back to the start. */
export function NotFound({ home }: { home?: string }) {
  const { pathname } = useLocation();
  const start = home ?? (isB2BPath(pathname) ? "/b2b" : "/");
  return (
    <Layout>
      <PageTitle>Seite nicht gefunden</PageTitle>
      <Typography sx={{ mb: 3 }} data-testid="not-found">
        Diese Adresse gibt es hier nicht. Vielleicht wurde der Link falsch kopiert oder die Seite ist umgezogen.
      </Typography>
      <Button component={RouterLink} to={start} variant="contained" data-testid="not-found-home">
        Zur Startseite
      </Button>
    </Layout>
  );
}
