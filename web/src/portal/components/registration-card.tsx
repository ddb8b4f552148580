import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Card from "@mui/material/Card";
import CardActions from "@mui/material/CardActions";
import CardContent from "@mui/material/CardContent";
import Divider from "@mui/material/Divider";
import Link from "@mui/material/Link";
import Typography from "@mui/material/Typography";
import { type ReactNode, useState } from "react";
import { useTranslation } from "react-i18next";

import { usePartner } from "@/shared/lib/partner-context";

import type { RegistrationItem } from "../api/quota-applications";
import { euros } from "../lib/money";
import { ScanImage } from "./scan-image";
import { StatusTimeline } from "./status-timeline";

function Row({ label, value, testId }: { label: string; value: ReactNode; testId?: string }) {
  return (
    <Box sx={{ display: "flex", justifyContent: "space-between", gap: 2, py: 0.25 }} data-testid={testId}>
      <Typography variant="body2" color="text.secondary">
        {label}
      </Typography>
      <Typography variant="body2" sx={{ textAlign: "right", overflowWrap: "anywhere" }}>
        {value}
      </Typography>
    </Box>
  );
}

/** A document's issue date (YYYY-MM-DD) as the reader's language writes a day. */
function issueDay(iso: string, language: string): string {
  const date = new Date(`${iso}T00:00:00`);
  if (Number.isNaN(date.getTime())) return iso;
  return new Intl.DateTimeFormat(language === "en" ? "en-GB" : "de-DE", { day: "2-digit", month: "2-digit", year: "numeric" }).format(date);
}

/** One registration: number, vehicle, year, timeline, fees, scan, resubmit, details. */
export function RegistrationCard({ item, onResubmit }: { item: RegistrationItem; onResubmit: (item: RegistrationItem) => void }) {
  const { t, i18n } = useTranslation();
  const partner = usePartner();
  const [more, setMore] = useState(false);
  const { registration } = item;
  const client = registration.client;
  const money = (amount: string | null) => euros(amount, i18n.language);

  return (
    <Card id={`registration-${item.sequence}`} data-testid="registration-card" data-sequence={item.sequence} variant="outlined">
      <CardContent sx={{ display: "grid", gap: 2, gridTemplateColumns: { xs: "1fr", md: "1fr auto" } }}>
        <Box>
          <Row label={t("registrations.number")} value={item.sequence} />
          <Row label={t("registrations.vehicleType")} value={registration.vehicle_type} />
          <Row label={t("registrations.year")} value={item.legislation_year} />
          {partner.show_client_fee_euro_amount && item.client_fee !== null && (
            <Box data-testid="fee-rows" sx={{ mt: 1 }}>
              <Row label={t("registrations.clientFee")} value={money(item.display_vat && item.vat_details ? item.vat_details.client_fee_after_vat : item.client_fee)} />
              {item.display_vat && item.vat_details && (
                <Box sx={{ pl: 2 }}>
                  <Row label={t("registrations.basicFee")} value={money(item.client_fee)} />
                  <Row label={t("registrations.vat", { percent: item.vat_details.vat_percentage })} value={money(item.vat_details.vat_amount)} />
                </Box>
              )}
              {item.next_year_client_fee_for_m1 !== null ? (
                <Row label={t("registrations.nextYearFee", { year: item.next_year_client_fee_year })} value={money(item.next_year_client_fee_for_m1)} testId="next-year-fee" />
              ) : (
                partner.theme.flags.isUtility && (
                  <Typography variant="body2" color="text.secondary" data-testid="next-year-placeholder">
                    {partner.qa_create_choices.placeholder_message || t("registrations.nextYearPlaceholder", { year: item.next_year_client_fee_year })}
                  </Typography>
                )
              )}
            </Box>
          )}
          <Divider sx={{ my: 1.5 }} />
          <StatusTimeline entries={item.status_timeline} />
          {item.payout_documents.length > 0 && (
            <Box data-testid="payout-documents" sx={{ mt: 1.5 }}>
              <Typography variant="subtitle2" component="h3">
                {t("registrations.payoutDocuments")}
              </Typography>
              {item.payout_documents.map((document) => (
                <Typography variant="body2" key={document.number}>
                  <Link href={document.url} target="_blank" rel="noopener" data-testid="payout-document-link">
                    {t(`registrations.documentKinds.${document.kind}`)} {document.number}
                  </Link>{" "}
                  {t("registrations.documentIssued", { date: issueDay(document.issue_date, i18n.language) })}
                </Typography>
              ))}
            </Box>
          )}
        </Box>
        <ScanImage
          src={registration.resized_image || registration.zlb_scan}
          width={registration.width}
          height={registration.height}
          // the neutral card says only this (the picture itself is not shown: issue 51)
          alt={registration.scan_placeholder ? t("registrations.scanReceived") : t("registrations.scan", { sequence: item.sequence })}
        />
      </CardContent>
      {more && (
        <CardContent data-testid="card-details" sx={{ pt: 0, display: "grid", gap: 2, gridTemplateColumns: { xs: "1fr", md: "repeat(3, 1fr)" } }}>
          <Box>
            <Typography variant="subtitle2">{t("registrations.clientDetails")}</Typography>
            <Typography variant="body2">
              {client.first_name} {client.last_name}
              <br />
              {client.street_name} {client.street_number}
              <br />
              {client.postal_code} {client.city}
              <br />
              {client.email}
            </Typography>
          </Box>
          {client.vehicle_owner_type === "business" && (
            <Box>
              <Typography variant="subtitle2">{t("registrations.businessDetails")}</Typography>
              <Typography variant="body2">{client.name_of_business}</Typography>
              <Row
                label={t("registrations.taxExempt")}
                value={
                  <Box component="span" sx={{ color: client.is_vat_mandatory ? "success.main" : "error.main", fontWeight: 600 }} data-testid="tax-exempt">
                    {client.is_vat_mandatory ? t("registrations.yes") : t("registrations.no")}
                  </Box>
                }
              />
              {client.vat_number && <Typography variant="body2">{client.vat_number}</Typography>}
            </Box>
          )}
          <Box>
            <Typography variant="subtitle2">{t("registrations.billingDetails")}</Typography>
            {client.account_name && <Row label={t("registrations.bankAccount")} value={client.account_name} />}
            {client.account_iban && <Row label={t("registrations.bankNumber")} value={client.account_iban} testId="masked-iban" />}
          </Box>
        </CardContent>
      )}
      <CardActions sx={{ justifyContent: "space-between", flexWrap: "wrap", gap: 1 }}>
        <Button variant="contained" disabled={item.allowed_resubmit_years.length === 0} onClick={() => onResubmit(item)} data-testid="resubmit">
          {t("registrations.resubmit")}
        </Button>
        <Button onClick={() => setMore(!more)} aria-expanded={more} data-testid="show-more">
          {more ? t("registrations.showLess") : t("registrations.showMore")}
        </Button>
      </CardActions>
    </Card>
  );
}
